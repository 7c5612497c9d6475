// swift-tools-version:6.0
import PackageDescription

// No package dependencies: the toolchain (Foundation, Dispatch, Synchronization,
// Swift Testing) and system C libraries are the whole toolbox.
//
// Import rules (DESIGN.md section 2): EventBus knows nothing of juice; plugins import
// JuiceMakerCore only; JuiceCLI is the one place that knows every plugin.
let package = Package(
    name: "JuiceMaker",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "EventBus", targets: ["EventBus"]),
        .library(name: "JuiceMakerCore", targets: ["JuiceMakerCore"]),
        .library(name: "SQLiteStore", targets: ["SQLiteStore"]),
        .executable(name: "juice", targets: ["JuiceCLI"]),
        .executable(name: "juice-bench", targets: ["JuiceBench"]),
    ],
    targets: [
        // Libraries
        .target(name: "EventBus"),
        .target(name: "JuiceMakerCore", dependencies: ["EventBus"]),
        .systemLibrary(
            name: "CSQLite", path: "Sources/CSQLite", pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]),
        .target(name: "SQLiteStore", dependencies: ["JuiceMakerCore", "CSQLite"]),
        .systemLibrary(
            name: "CCrypto", path: "Sources/CCrypto", pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"]), .brew(["openssl"])]),

        // Plugins: one front-end module each, importing JuiceMakerCore only.
        .target(name: "LoggerPlugin", dependencies: ["JuiceMakerCore"], path: "Plugins/Logger"),
        .target(name: "CLINotifierPlugin", dependencies: ["JuiceMakerCore"], path: "Plugins/CLINotifier"),
        .target(name: "WebhookPlugin", dependencies: ["JuiceMakerCore", "CCrypto"], path: "Plugins/Webhook"),
        .target(name: "CommandPlugin", dependencies: ["JuiceMakerCore"], path: "Plugins/Command"),

        // Executables
        .executableTarget(
            name: "JuiceCLI",
            dependencies: [
                "JuiceMakerCore", "SQLiteStore", "LoggerPlugin", "CLINotifierPlugin", "WebhookPlugin", "CommandPlugin",
            ]),
        .executableTarget(
            name: "JuiceBench",
            dependencies: [
                "EventBus", "JuiceMakerCore", "SQLiteStore", "CSQLite", "LoggerPlugin", "CLINotifierPlugin",
                "WebhookPlugin",
            ]),
        /// A small process the store tests start many times at once (orders, restocks, crashes).
        .executableTarget(name: "JuiceStoreProbe", dependencies: ["JuiceMakerCore", "SQLiteStore"]),

        // Tests
        .testTarget(name: "EventBusTests", dependencies: ["EventBus"]),
        .testTarget(name: "JuiceMakerCoreTests", dependencies: ["JuiceMakerCore"]),
        .testTarget(name: "SQLiteStoreTests", dependencies: ["SQLiteStore", "CSQLite", "JuiceStoreProbe"]),
        .testTarget(name: "PluginTests", dependencies: ["LoggerPlugin", "CLINotifierPlugin"]),
        .testTarget(name: "JuiceCLITests", dependencies: ["JuiceCLI"]),
        .testTarget(name: "DeliveryTests", dependencies: ["WebhookPlugin", "CommandPlugin", "CCrypto", "JuiceCLI"]),
    ],
    swiftLanguageModes: [.v6]
)
