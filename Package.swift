// swift-tools-version:6.0
import Foundation
import PackageDescription

// No package dependencies: the toolchain (Foundation, Dispatch, Synchronization,
// Swift Testing) and system C libraries are the whole toolbox.
//
// Import rules (README, Architecture): EventBus knows nothing of juice; JuiceMakerCore
// knows nothing of plugins; plugins import JuiceMakerPluginKit, JuiceMakerCore, EventBus
// (the subscription token and delivery modes) and Locking only; JuiceMakerTesting is for
// tests; JuiceCLI is the one place that knows every plugin. No module re-exports another
// (no `@_exported import`): each file imports what it uses.

/// The compiler holds the core, the kit, the doubles and the plugins to that: a member
/// of another module's type (`withLock`, `range(of:)`) needs that module imported in
/// the file that uses it, not just somewhere in the target (SE-0444).
let importsWhatItUses: [SwiftSetting] = [.enableUpcomingFeature("MemberImportVisibility")]

/// The fleet (README, Fleet) needs the NATS C client, libnats. A fresh machine has no
/// libnats-dev, and `swift run juice` must still build there: the NATS plugin and the
/// fleet commands' client are included only when the header is installed, and
/// `JUICE_WITHOUT_NATS=1` leaves them out anyway (to try the build a fresh machine
/// gets). JuiceCLI and the fleet tests check `#if canImport(NATSPlugin)`.
let natsHeaders = [
    "/usr/include/nats/nats.h", "/usr/include/nats.h", "/usr/local/include/nats/nats.h", "/usr/local/include/nats.h",
    "/opt/homebrew/include/nats/nats.h",
]
let withNATS =
    ProcessInfo.processInfo.environment["JUICE_WITHOUT_NATS"] != "1"
    && natsHeaders.contains { FileManager.default.fileExists(atPath: $0) }
/// The NATS targets, or none.
let natsTargets: [Target] =
    withNATS
    ? [
        /// libnats linked, for `juice-bench fleet`'s loop straight over the C client.
        .systemLibrary(
            name: "CNATS", path: "Sources/CNATS", pkgConfig: "libnats",
            providers: [.apt(["libnats-dev"]), .brew(["cnats"])]),
        /// libnats loaded when the first NATS connection is set up (dlopen), so no `juice`
        /// command pays for loading it and the libraries it brings at start.
        .target(name: "CNATSLoader", path: "Sources/CNATSLoader"),
        /// The `nats` durable subscriber and the fleet client, over a small safe layer on libnats.
        .target(
            name: "NATSPlugin",
            dependencies: ["JuiceMakerPluginKit", "JuiceMakerCore", "EventBus", "Locking", "FleetConfiguration", "CNATSLoader"],
            path: "Plugins/NATS", swiftSettings: importsWhatItUses),
    ] : []
let natsDependency: [Target.Dependency] = withNATS ? ["NATSPlugin"] : []

/// The webhook loads OpenSSL when it opens an https connection (Sources/CTLS/shim.h), so
/// no `juice` command pays for loading it at start. On Linux its headers are on the
/// default path and nothing links it; elsewhere pkg-config finds Homebrew's headers
/// (and links the library, which the loader then finds already there).
#if os(Linux)
let openSSLPackage: String? = nil
#else
let openSSLPackage: String? = "openssl"
#endif

/// Release builds of `juice`, and of the floor its start is measured against, are
/// linked by LLVM's lld (it ships with the Swift toolchain) with packed relative
/// relocations (DT_RELR, `-z pack-relative-relocs`): the loader reads a 7.4 KB bitmap
/// instead of 38,938 24-byte entries (934 KB), so a command touches 0.8 MB less of the
/// binary (README, Measured). lld, not GNU ld: Swift's objects put type descriptors in a
/// writable `.rodata`, after which GNU ld makes no RELRO segment, and the relocated
/// pointers (witness tables, metadata, the GOT) would stay writable for the whole run;
/// lld keeps them read-only after start, as the toolchain's default link does, at the
/// same start-up time (README, Measured). The binary then needs glibc 2.36 or later to
/// run, so this is done only where the building machine has that glibc (the binary is
/// run where it is built) and `ld.lld` is on the PATH; anywhere else, and in debug
/// builds, the toolchain's default link is kept.
let packsRelocations: Bool = {
    #if os(Linux)
    let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
    guard path.split(separator: ":").contains(where: { FileManager.default.isExecutableFile(atPath: "\($0)/ld.lld") }) else {
        return false
    }
    var buffer = [CChar](repeating: 0, count: 64)
    guard confstr(Int32(_CS_GNU_LIBC_VERSION), &buffer, buffer.count) > 0 else { return false }
    // "glibc 2.36"
    let version = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    let numbers = version.split(separator: " ").last.map { $0.split(separator: ".").compactMap { Int($0) } } ?? []
    guard numbers.count >= 2 else { return false }
    return (numbers[0], numbers[1]) >= (2, 36)
    #else
    return false
    #endif
}()
/// That release link, also:
/// - with `--no-export-dynamic`: the toolchain's static-stdlib flags export every public
///   symbol of the package's own modules (2,634 dynamic symbols in `juice`; 382 without),
///   which the runtime's start-up `dladdr` scans and each symbol lookup's hash table holds
///   (README, Measured). Nothing looks symbols up in `juice`;
/// - with the functions a command runs at start placed first and together, in the order
///   `Sources/juice/start-order.txt` lists them (`juice-bench start-order` writes it): a
///   command then faults in fewer pages of code (README, Measured). A name the link
///   does not find is skipped without a warning, so a stale list only loses some of
///   the gain. The floor is linked with the same list.
let startOrder = Context.packageDirectory + "/Sources/juice/start-order.txt"
let startLinking: [LinkerSetting] =
    packsRelocations
    ? [
        .unsafeFlags(
            [
                "-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs", "-Xlinker", "--no-export-dynamic",
                "-Xlinker", "--symbol-ordering-file=" + startOrder, "-Xlinker", "--no-warn-symbol-ordering",
            ],
            .when(platforms: [.linux], configuration: .release))
    ]
    : []

/// SQLite: release builds on Linux link the system's static `libsqlite3.a` (Debian's
/// libsqlite3-dev installs it beside the shared library) into the executable, so a
/// command does not map and bind one more shared library at start (README, Measured).
/// Debug builds, `swift test`, machines without the archive and other systems link
/// the shared library, as before. The module map names no library for that reason:
/// the choice is made here.
let linksSQLiteArchive: Bool = {
    #if os(Linux) && arch(x86_64)
    let directories = ["/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib"]
    #elseif os(Linux) && arch(arm64)
    let directories = ["/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/lib"]
    #else
    let directories: [String] = []
    #endif
    return directories.contains { FileManager.default.fileExists(atPath: $0 + "/libsqlite3.a") }
}()
/// `-l:libsqlite3.a` (GNU ld and lld: that file, on the library path) rather than the archive's
/// path as a flag, which SwiftPM would count as unsafe and which would make the
/// SQLiteStore product unusable from another package.
let sqliteLinking: [LinkerSetting] =
    linksSQLiteArchive
    ? [.linkedLibrary("sqlite3", .when(configuration: .debug)), .linkedLibrary(":libsqlite3.a", .when(configuration: .release))]
    : [.linkedLibrary("sqlite3")]

/// Release builds of the CLI and the plugins ask the compiler for direct metadata
/// accessors instead of mangled type names for the generic types they use (`Set<String>`,
/// `[String: [String]]`, `[OptionSpec]`…). A mangled name is small, but the runtime has
/// to demangle it at first use and look up its conformances, scanning every conformance
/// record in the binary (README, Measured). Not for the library products, which a
/// package depending on this one could not use with unsafe flags in them.
///
/// On Linux each function also gets a section of its own (`-function-sections`), so the
/// release link can place what runs at start together (`startLinking`).
let startCompiling: [SwiftSetting] = [
    .unsafeFlags(["-Xfrontend", "-disable-concrete-type-metadata-mangled-name-accessors"], .when(configuration: .release)),
    .unsafeFlags(["-Xfrontend", "-function-sections"], .when(platforms: [.linux], configuration: .release)),
]

let package = Package(
    name: "JuiceMaker",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "Locking", targets: ["Locking"]),
        .library(name: "EventBus", targets: ["EventBus"]),
        .library(name: "JuiceJSON", targets: ["JuiceJSON"]),
        .library(name: "JuiceMakerCore", targets: ["JuiceMakerCore"]),
        .library(name: "JuiceMakerPluginKit", targets: ["JuiceMakerPluginKit"]),
        .library(name: "JuiceMakerTesting", targets: ["JuiceMakerTesting"]),
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
        /// JSON text: one iterative parser whose options are each reader's policy, one
        /// value type, one writer. The standard library only.
        .target(name: "JuiceJSON", swiftSettings: importsWhatItUses),
        /// The domain (fruits, juices, `JuiceMaker`), its events, the store ports with the
        /// in-memory adapter, and the wire format.
        .target(name: "JuiceMakerCore", dependencies: ["EventBus", "Locking", "JuiceJSON"], swiftSettings: importsWhatItUses),
        /// What a plugin author needs: the plugin contract and host, configuration
        /// declarations and errors, text output, durable delivery.
        .target(name: "JuiceMakerPluginKit", dependencies: ["JuiceMakerCore", "EventBus", "Locking"], swiftSettings: importsWhatItUses),
        /// Test doubles for code that listens to a `JuiceMaker` (`RecordingSubscriber`).
        .target(name: "JuiceMakerTesting", dependencies: ["JuiceMakerCore", "EventBus", "Locking"], swiftSettings: importsWhatItUses),
        .systemLibrary(
            name: "CSQLite", path: "Sources/CSQLite", pkgConfig: linksSQLiteArchive ? nil : "sqlite3",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]),
        .target(name: "SQLiteStore", dependencies: ["JuiceMakerCore", "Locking", "CSQLite"], linkerSettings: sqliteLinking),
        /// libcrypto, for the tests that check the webhook's own HMAC-SHA256 against it.
        .systemLibrary(
            name: "CCrypto", path: "Sources/CCrypto", pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"]), .brew(["openssl"])]),
        /// OpenSSL's headers for the webhook's TLS; the library is loaded when an https
        /// connection is opened (shim.h), so nothing links it on Linux.
        .systemLibrary(
            name: "CTLS", path: "Sources/CTLS", pkgConfig: openSSLPackage,
            providers: [.apt(["libssl-dev"]), .brew(["openssl"])]),
        /// GNU readline, for line editing and history in the screens on a terminal
        /// (GPL-3: README, "Line editing and the GPL"). No `pkgConfig`: readline.pc
        /// pulls in ncurses' `-D_XOPEN_SOURCE=600`, which SwiftPM drops with a warning;
        /// the headers and library are on the default paths (libreadline-dev).
        .systemLibrary(
            name: "CReadline", path: "Sources/CReadline",
            providers: [.apt(["libreadline-dev"]), .brew(["readline"])]),

        // Plugins: one front-end module each, importing the plugin kit, the core, the bus and
        // Locking only.
        .target(
            name: "LoggerPlugin", dependencies: ["JuiceMakerPluginKit", "JuiceMakerCore", "EventBus", "Locking"],
            path: "Plugins/Logger", swiftSettings: importsWhatItUses + startCompiling),
        .target(
            name: "CLINotifierPlugin", dependencies: ["JuiceMakerPluginKit", "JuiceMakerCore", "EventBus", "Locking"],
            path: "Plugins/CLINotifier", swiftSettings: importsWhatItUses + startCompiling),
        .target(
            name: "WebhookPlugin",
            dependencies: ["JuiceMakerPluginKit", "JuiceMakerCore", "EventBus", "Locking", "CTLS"],
            path: "Plugins/Webhook", swiftSettings: importsWhatItUses + startCompiling),
        .target(
            name: "CommandPlugin", dependencies: ["JuiceMakerPluginKit", "JuiceMakerCore", "EventBus", "Locking"],
            path: "Plugins/Command", swiftSettings: importsWhatItUses + startCompiling),
        /// The fleet's keys and subject scheme, in every build (no libnats): the config is
        /// checked and `juice config schema` prints the same with or without NATS.
        .target(
            name: "FleetConfiguration", dependencies: ["JuiceMakerPluginKit", "JuiceMakerCore"],
            path: "Plugins/FleetConfiguration", swiftSettings: importsWhatItUses + startCompiling),

        /// Starts the background `juice deliver` once the command that hands its events on
        /// has exited (fork, wait for the parent's end, exec).
        .target(name: "CStartAfterExit", path: "Sources/CStartAfterExit"),

        // Executables
        /// The CLI as a library (so tests and fuzzers import it); `juice` is its thin process.
        .target(
            name: "JuiceCLI",
            dependencies: [
                "Locking", "JuiceJSON", "JuiceMakerCore", "JuiceMakerPluginKit", "SQLiteStore", "LoggerPlugin", "CLINotifierPlugin",
                "WebhookPlugin", "CommandPlugin", "CReadline", "FleetConfiguration", "CStartAfterExit",
            ] + natsDependency, swiftSettings: startCompiling),
        .executableTarget(
            name: "juice", dependencies: ["JuiceCLI"], exclude: ["start-order.txt"], swiftSettings: startCompiling,
            linkerSettings: startLinking),
        /// The floor `juice-bench cli` measures `juice --version` against: one line printed
        /// with only FoundationEssentials loaded. Not for users.
        .executableTarget(name: "juice-hello", path: "Sources/JuiceHello", swiftSettings: startCompiling, linkerSettings: startLinking),
        .executableTarget(
            name: "JuiceBench",
            dependencies: [
                "Locking", "EventBus", "JuiceMakerCore", "JuiceMakerPluginKit", "SQLiteStore", "CSQLite", "LoggerPlugin",
                "CLINotifierPlugin", "WebhookPlugin", "JuiceCLI", "FleetConfiguration", "JuiceMakerTesting",
            ] + natsDependency + (withNATS ? ["CNATS"] : [])),
        /// A small process the store tests start many times at once (orders, restocks, crashes).
        .executableTarget(name: "JuiceStoreProbe", dependencies: ["Locking", "JuiceMakerCore", "SQLiteStore"]),

        // Tests
        /// What several test targets share (temporary directories, threads, a plugin
        /// rig, a seeded generator, the built `juice`): a library, not a test target.
        .target(
            name: "JuiceTestSupport",
            dependencies: ["JuiceMakerCore", "JuiceMakerPluginKit", "JuiceMakerTesting", "EventBus", "Locking"],
            path: "Tests/Support"),
        .testTarget(name: "LockingTests", dependencies: ["Locking"]),
        .testTarget(name: "JSONTests", dependencies: ["JuiceJSON", "JuiceTestSupport"]),
        /// The bench's method (the orders its groups run in) and its start-order reader;
        /// not its timings, which no test asserts.
        .testTarget(name: "JuiceBenchTests", dependencies: ["JuiceBench"]),
        .testTarget(name: "EventBusTests", dependencies: ["EventBus", "Locking", "JuiceTestSupport"]),
        .testTarget(
            name: "JuiceMakerCoreTests",
            dependencies: ["JuiceMakerCore", "JuiceMakerPluginKit", "JuiceMakerTesting", "EventBus", "Locking", "JuiceTestSupport"]),
        .testTarget(name: "SQLiteStoreTests", dependencies: ["SQLiteStore", "Locking", "CSQLite", "JuiceStoreProbe", "JuiceTestSupport"]),
        .testTarget(name: "PluginTests", dependencies: ["LoggerPlugin", "CLINotifierPlugin", "JuiceMakerPluginKit", "Locking", "JuiceTestSupport"]),
        .testTarget(
            name: "JuiceCLITests",
            dependencies: ["JuiceCLI", "juice", "JuiceMakerCore", "JuiceMakerPluginKit", "SQLiteStore", "CSQLite", "Locking", "JuiceTestSupport"]),
        .testTarget(
            name: "DeliveryTests",
            dependencies: [
                "WebhookPlugin", "CommandPlugin", "JuiceMakerPluginKit", "CCrypto", "CTLS", "JuiceCLI", "juice", "Locking", "JuiceTestSupport",
            ],
            // The loopback TLS server calls libssl itself (the plugin loads it at run time).
            linkerSettings: [.linkedLibrary("ssl", .when(platforms: [.linux]))]),
        /// Real `nats-server -js` processes on loopback; skipped (one line) without NATS.
        .testTarget(
            name: "FleetTests",
            dependencies: [
                "JuiceCLI", "juice", "JuiceMakerCore", "JuiceMakerPluginKit", "FleetConfiguration", "Locking", "CCrypto", "JuiceTestSupport",
                "SQLiteStore",
            ]
                + natsDependency),

        // Fuzz targets (Tests/Fuzz, run.sh): a plain build replays the corpus files given
        // as arguments; built with -sanitize=fuzzer,address -DFUZZING, a libFuzzer target.
        .target(name: "CFuzzerDriver", path: "Tests/Fuzz/CFuzzerDriver"),
        .target(name: "FuzzSupport", dependencies: ["CFuzzerDriver"], path: "Tests/Fuzz/Support"),
        .executableTarget(name: "FuzzJSONReader", dependencies: ["FuzzSupport", "JuiceCLI"], path: "Tests/Fuzz/FuzzJSONReader", exclude: ["corpus"]),
        .executableTarget(name: "FuzzJSON", dependencies: ["FuzzSupport", "JuiceJSON"], path: "Tests/Fuzz/FuzzJSON", exclude: ["corpus"]),
        .executableTarget(
            name: "FuzzCommandLine", dependencies: ["FuzzSupport", "JuiceCLI"], path: "Tests/Fuzz/FuzzCommandLine", exclude: ["corpus"]),
        .executableTarget(
            name: "FuzzCloudEvent", dependencies: ["FuzzSupport", "JuiceJSON", "JuiceMakerCore", "JuiceMakerTesting"],
            path: "Tests/Fuzz/FuzzCloudEvent", exclude: ["corpus"]),
        .executableTarget(name: "FuzzRFC3339", dependencies: ["FuzzSupport", "JuiceMakerCore"], path: "Tests/Fuzz/FuzzRFC3339", exclude: ["corpus"]),
        .executableTarget(
            name: "FuzzRetryAfter", dependencies: ["FuzzSupport", "WebhookPlugin"], path: "Tests/Fuzz/FuzzRetryAfter", exclude: ["corpus"]),
        .executableTarget(
            name: "FuzzHTTPResponse", dependencies: ["FuzzSupport", "WebhookPlugin"], path: "Tests/Fuzz/FuzzHTTPResponse", exclude: ["corpus"]),
    ] + natsTargets,
    swiftLanguageModes: [.v6]
)
