// swift-tools-version:6.0
import PackageDescription

// No package dependencies: the toolchain (Foundation, Dispatch, Synchronization,
// Swift Testing) and system C libraries are the whole toolbox.
//
// Import rules (README, Architecture): EventBus knows nothing of juice; plugins import
// JuiceMakerCore and Locking only; JuiceCLI is the one place that knows every plugin.
let package = Package(
    name: "JuiceMaker",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "Locking", targets: ["Locking"]),
        .library(name: "EventBus", targets: ["EventBus"]),
        .library(name: "JuiceMakerCore", targets: ["JuiceMakerCore"]),
        .library(name: "SQLiteStore", targets: ["SQLiteStore"]),
        .executable(name: "juice", targets: ["juice"]),
        .executable(name: "juice-bench", targets: ["JuiceBench"]),
    ],
    targets: [
        // Libraries
        /// The one lock type (pthread-based, so ThreadSanitizer sees it), the
        /// condition every in-process wait uses, and the thread identity.
        .target(name: "Locking"),
        .target(name: "EventBus", dependencies: ["Locking"]),
        .target(name: "JuiceMakerCore", dependencies: ["EventBus", "Locking"]),
        .systemLibrary(
            name: "CSQLite", path: "Sources/CSQLite", pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]),
        .target(name: "SQLiteStore", dependencies: ["JuiceMakerCore", "Locking", "CSQLite"]),
        .systemLibrary(
            name: "CCrypto", path: "Sources/CCrypto", pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"]), .brew(["openssl"])]),

        // Plugins: one front-end module each, importing JuiceMakerCore only.
        .target(name: "LoggerPlugin", dependencies: ["JuiceMakerCore", "Locking"], path: "Plugins/Logger"),
        .target(name: "CLINotifierPlugin", dependencies: ["JuiceMakerCore", "Locking"], path: "Plugins/CLINotifier"),
        .target(name: "WebhookPlugin", dependencies: ["JuiceMakerCore", "Locking", "CCrypto"], path: "Plugins/Webhook"),
        .target(name: "CommandPlugin", dependencies: ["JuiceMakerCore", "Locking"], path: "Plugins/Command"),

        // Executables
        /// The CLI as a library (so tests and fuzzers import it); `juice` is its thin process.
        .target(
            name: "JuiceCLI",
            dependencies: [
                "Locking", "JuiceMakerCore", "SQLiteStore", "LoggerPlugin", "CLINotifierPlugin", "WebhookPlugin",
                "CommandPlugin",
            ]),
        .executableTarget(name: "juice", dependencies: ["JuiceCLI"]),
        .executableTarget(
            name: "JuiceBench",
            dependencies: [
                "Locking", "EventBus", "JuiceMakerCore", "SQLiteStore", "CSQLite", "LoggerPlugin", "CLINotifierPlugin",
                "WebhookPlugin", "JuiceCLI",
            ]),
        /// A small process the store tests start many times at once (orders, restocks, crashes).
        .executableTarget(name: "JuiceStoreProbe", dependencies: ["Locking", "JuiceMakerCore", "SQLiteStore"]),

        // Tests
        /// What several test targets share (temporary directories, threads, a plugin
        /// rig, a seeded generator, the built `juice`): a library, not a test target.
        .target(name: "JuiceTestSupport", dependencies: ["JuiceMakerCore", "Locking"], path: "Tests/Support"),
        .testTarget(name: "LockingTests", dependencies: ["Locking"]),
        .testTarget(name: "EventBusTests", dependencies: ["EventBus", "Locking", "JuiceTestSupport"]),
        .testTarget(name: "JuiceMakerCoreTests", dependencies: ["JuiceMakerCore", "Locking", "JuiceTestSupport"]),
        .testTarget(
            name: "SQLiteStoreTests", dependencies: ["SQLiteStore", "Locking", "CSQLite", "JuiceStoreProbe", "JuiceTestSupport"]),
        .testTarget(name: "PluginTests", dependencies: ["LoggerPlugin", "CLINotifierPlugin", "Locking", "JuiceTestSupport"]),
        .testTarget(
            name: "JuiceCLITests", dependencies: ["JuiceCLI", "juice", "JuiceMakerCore", "SQLiteStore", "Locking", "JuiceTestSupport"]),
        .testTarget(
            name: "DeliveryTests",
            dependencies: ["WebhookPlugin", "CommandPlugin", "CCrypto", "JuiceCLI", "juice", "Locking", "JuiceTestSupport"]),

        // Fuzz targets (Tests/Fuzz, run.sh): a plain build replays the corpus files given
        // as arguments; built with -sanitize=fuzzer,address -DFUZZING, a libFuzzer target.
        .target(name: "CFuzzerDriver", path: "Tests/Fuzz/CFuzzerDriver"),
        .target(name: "FuzzSupport", dependencies: ["CFuzzerDriver"], path: "Tests/Fuzz/Support"),
        .executableTarget(name: "FuzzJSONReader", dependencies: ["FuzzSupport", "JuiceCLI"], path: "Tests/Fuzz/FuzzJSONReader", exclude: ["corpus"]),
        .executableTarget(name: "FuzzCommandLine", dependencies: ["FuzzSupport", "JuiceCLI"], path: "Tests/Fuzz/FuzzCommandLine", exclude: ["corpus"]),
        .executableTarget(name: "FuzzCloudEvent", dependencies: ["FuzzSupport", "JuiceMakerCore"], path: "Tests/Fuzz/FuzzCloudEvent", exclude: ["corpus"]),
        .executableTarget(name: "FuzzRFC3339", dependencies: ["FuzzSupport", "JuiceMakerCore"], path: "Tests/Fuzz/FuzzRFC3339", exclude: ["corpus"]),
        .executableTarget(name: "FuzzRetryAfter", dependencies: ["FuzzSupport", "WebhookPlugin"], path: "Tests/Fuzz/FuzzRetryAfter", exclude: ["corpus"]),
    ],
    swiftLanguageModes: [.v6]
)
