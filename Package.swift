// swift-tools-version:6.2
import Foundation
import PackageDescription

// No package dependencies: the toolchain (Foundation, Dispatch, Synchronization,
// Swift Testing) and system C libraries are the whole toolbox.
//
// Import rules (the Architecture article): EventBus and JuicePrimitives know nothing of
// juice; JuiceMakerCore knows nothing of plugins; a transport (JuiceHTTP, NATSClient)
// knows nothing of plugins either, nor of the domain or the fleet's config (what it
// shares with them is in JuicePrimitives; FleetReaders reads NATS in the domain's
// terms, above it); a module that is not a product declares package, not public;
// plugins import JuiceMakerPluginKit, JuiceMakerCore, JuicePrimitives, EventBus (the
// subscription token and delivery modes), Locking, Spawning and transports only, never
// JuiceDelivery (the host's delivery service, which the CLI and the bench import);
// JuiceMakerTesting is for tests; the CLI's plugin registry is
// the one place that knows every plugin. No module re-exports another (no
// `@_exported import`): each file imports what it uses.

/// The compiler holds the core, the kit, the doubles and the plugins to that: a member
/// of another module's type (`withLock`, `range(of:)`) needs that module imported in
/// the file that uses it, not just somewhere in the target (SE-0444).
let importsWhatItUses: [SwiftSetting] = [.enableUpcomingFeature("MemberImportVisibility")]

// MARK: - What this machine has: every host probe, in one place
//
// The target graph is the same on every machine: what a machine may lack (libnats and
// nats-server for the fleet) is found at run time, never probed here. What differs is
// only how the release build links. These are all the choices; the manifest prints them (SwiftPM shows the line as
// "warning: 'juicemaker': build choices: …" at each build), so a build log says which
// were made.

/// Facts read off the building machine, each a reason for one choice below.
struct Host {
    /// LLVM's `ld.lld` on the PATH, and glibc 2.36 or later (for packed relocations).
    let canLinkWithLLD: Bool
    /// Debian's static `libsqlite3.a` beside the shared library.
    let hasSQLiteArchive: Bool

    static func probe() -> Host {
        let environment = ProcessInfo.processInfo.environment
        return Host(
            canLinkWithLLD: lldAndGlibc236(path: environment["PATH"] ?? ""),
            hasSQLiteArchive: sqliteArchive())
    }

    private static func lldAndGlibc236(path: String) -> Bool {
        #if os(Linux)
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
    }

    private static func sqliteArchive() -> Bool {
        #if os(Linux) && arch(x86_64)
        let directories = ["/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib"]
        #elseif os(Linux) && arch(arm64)
        let directories = ["/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/lib"]
        #else
        let directories: [String] = []
        #endif
        return directories.contains { FileManager.default.fileExists(atPath: $0 + "/libsqlite3.a") }
    }
}

let host = Host.probe()
print(
    "build choices: release link of juice: "
        + (host.canLinkWithLLD ? "lld, packed relocations, start order" : "the toolchain's default (no ld.lld or glibc < 2.36)")
        + "; SQLite in release: " + (host.hasSQLiteArchive ? "static libsqlite3.a" : "shared libsqlite3"))

// MARK: - The choices

/// The HTTP client (JuiceHTTP) loads OpenSSL when it opens an https connection
/// (Sources/CTLS/shim.h), so no `juice` command pays for loading it at start (start-up
/// rule "loaded when needed"). On Linux its headers are on the default path and nothing
/// links it; elsewhere pkg-config finds Homebrew's headers (and links the library).
#if os(Linux)
let openSSLPackage: String? = nil
#else
let openSSLPackage: String? = "openssl"
#endif

/// Release builds of `juice`, and of the floor its start is measured against, are
/// linked by LLVM's lld with packed relative relocations (`-z pack-relative-relocs`), no
/// exported symbols (`--no-export-dynamic`), and the functions a command runs at start
/// placed first, in the order `Sources/juice/start-order.txt` lists them (start-up rule
/// "the release link", in the performance article). lld rather than GNU ld keeps the
/// relocated data read-only after start (a GNU_RELRO segment, which CI checks). The
/// binary then needs glibc 2.36 to run, so this is done only where the building machine
/// has it; elsewhere, and in debug builds, the toolchain's default link is kept. lld
/// warns for each name of the list it cannot place; CI counts those warnings, so the
/// list cannot go stale without a word.
let packsRelocations = host.canLinkWithLLD
let startOrder = Context.packageDirectory + "/Sources/juice/start-order.txt"
let startLinking: [LinkerSetting] =
    packsRelocations
    ? [
        .unsafeFlags(
            [
                "-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs", "-Xlinker", "--no-export-dynamic",
                "-Xlinker", "--symbol-ordering-file=" + startOrder,
            ],
            .when(platforms: [.linux], configuration: .release))
    ]
    : []

/// SQLite: release builds on Linux link the system's static `libsqlite3.a` into the
/// executable, so a command does not map and bind one more shared library at start.
/// Debug builds, `swift test`, machines without the archive and other systems link the
/// shared library. The module map names no library for that reason: the choice is
/// made here. `-l:libsqlite3.a` rather than the archive's path as a flag, which SwiftPM
/// would count as unsafe and which would make the SQLiteStore product unusable from
/// another package.
let linksSQLiteArchive = host.hasSQLiteArchive
let sqliteLinking: [LinkerSetting] =
    linksSQLiteArchive
    ? [.linkedLibrary("sqlite3", .when(configuration: .debug)), .linkedLibrary(":libsqlite3.a", .when(configuration: .release))]
    : [.linkedLibrary("sqlite3")]

/// Release builds of the CLI and the plugins ask the compiler for direct metadata
/// accessors instead of mangled type names, which the runtime demangles at first use
/// (start-up rule "direct metadata accessors"). Not for the library products, which a
/// package depending on this one could not use with unsafe flags in them. On Linux each
/// function also gets a section of its own (`-function-sections`), so the release link
/// can place what runs at start together.
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
        .library(name: "JuicePrimitives", targets: ["JuicePrimitives"]),
        .library(name: "JuiceJSON", targets: ["JuiceJSON"]),
        .library(name: "JuiceMakerCore", targets: ["JuiceMakerCore"]),
        .library(name: "JuiceMakerPluginKit", targets: ["JuiceMakerPluginKit"]),
        .library(name: "JuiceMakerTesting", targets: ["JuiceMakerTesting"]),
        .library(name: "SQLiteStore", targets: ["SQLiteStore"]),
        /// `juice` as a library: a package of its own starts it with its plugin types
        /// added to the built-in ones (`JuiceProcess.main(plugins:)`,
        /// Tests/Fixtures/ThirdPartyPlugin).
        .library(name: "JuiceCLI", targets: ["JuiceCLI"]),
        .executable(name: "juice", targets: ["juice"]),
        .executable(name: "juice-bench", targets: ["JuiceBench"]),
    ],
    targets: [
        // Libraries
        /// The one lock type (pthread-based, so ThreadSanitizer sees it), the
        /// condition every in-process wait uses, and the thread identity.
        .target(name: "Locking"),
        /// Programs started with `posix_spawn` (no Foundation): the launch, the wait for
        /// its end, and a child reaped on a thread of its own.
        .target(name: "Spawning", dependencies: ["Locking"], swiftSettings: importsWhatItUses + startCompiling),
        .target(name: "EventBus", dependencies: ["Locking"]),
        /// What the transports and the domain share, below both: a message in both
        /// languages, URLs taken apart (and shown without their secrets), RFC 3339 dates,
        /// literal text search by bytes. The standard library only.
        .target(name: "JuicePrimitives", swiftSettings: importsWhatItUses),
        /// JSON text: one iterative parser whose options are each reader's policy, one
        /// value type, one writer. The standard library only.
        .target(name: "JuiceJSON", swiftSettings: importsWhatItUses),
        /// The domain (fruits, juices, `JuiceMaker`), its events, the store ports with the
        /// in-memory adapter, and the wire format.
        .target(name: "JuiceMakerCore", dependencies: ["JuicePrimitives", "EventBus", "Locking", "JuiceJSON"], swiftSettings: importsWhatItUses),
        /// What a plugin author needs: the two plugin contracts (observer, durable) and
        /// the declaration the host reads, configuration keys and errors, text output,
        /// the one destination shape, and an HTTP endpoint in that shape (over JuiceHTTP).
        .target(
            name: "JuiceMakerPluginKit", dependencies: ["JuicePrimitives", "JuiceJSON", "JuiceMakerCore", "EventBus", "Locking", "JuiceHTTP"],
            swiftSettings: importsWhatItUses),
        /// Delivery, a service the host owns: per durable subscriber a runner over the
        /// journal (cursors, windows, retry schedules, leases, dead letters) that hands
        /// events to the plugin's destination. Plugins never import it.
        .target(
            name: "JuiceDelivery",
            dependencies: [
                "JuicePrimitives", "JuiceMakerCore", "JuiceMakerPluginKit", "EventBus", "Locking", "CStartAfterExit", "FleetConfiguration",
                "NATSClient", "FleetReaders",
            ],
            swiftSettings: importsWhatItUses),
        /// Test doubles for code that listens to a `JuiceMaker` (`RecordingSubscriber`).
        .target(name: "JuiceMakerTesting", dependencies: ["JuiceMakerCore", "EventBus", "Locking"], swiftSettings: importsWhatItUses),
        .systemLibrary(
            name: "CSQLite", path: "Sources/CSQLite", pkgConfig: linksSQLiteArchive ? nil : "sqlite3",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]),
        .target(name: "SQLiteStore", dependencies: ["JuicePrimitives", "JuiceMakerCore", "Locking", "CSQLite"], linkerSettings: sqliteLinking),
        /// libcrypto, for the tests that check the HTTP client's own HMAC-SHA256 against it.
        .systemLibrary(
            name: "CCrypto", path: "Sources/CCrypto", pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"]), .brew(["openssl"])]),
        /// Opening the first of a library's names that loads: the header the loaders of
        /// `CTLS`, `CReadline` and `CNATSLoader` include. A system library has no
        /// dependencies, so the targets that import `CTLS` or `CReadline` depend on it.
        .target(name: "CDynamicLibrary"),
        /// OpenSSL's headers for the HTTP client's TLS; the library is loaded when an https
        /// connection is opened (shim.h), so nothing links it on Linux.
        .systemLibrary(
            name: "CTLS", path: "Sources/CTLS", pkgConfig: openSSLPackage,
            providers: [.apt(["libssl-dev"]), .brew(["openssl"])]),
        /// GNU readline, for line editing and history in the screens on a terminal
        /// (GPL-3: the article "Line editing and the GPL"). No `pkgConfig`: readline.pc
        /// pulls in ncurses' `-D_XOPEN_SOURCE=600`, which SwiftPM drops with a warning;
        /// the headers and library are on the default paths (libreadline-dev).
        .systemLibrary(
            name: "CReadline", path: "Sources/CReadline",
            providers: [.apt(["libreadline-dev"]), .brew(["readline"])]),

        // Transports: what a plugin adapts events to, usable without any plugin.
        /// The HTTP/1.1 client (TLS through OpenSSL loaded at first use, Retry-After,
        /// HMAC-SHA256, base64) the webhook posts with.
        .target(
            name: "JuiceHTTP", dependencies: ["JuicePrimitives", "Locking", "CTLS", "CDynamicLibrary"],
            swiftSettings: importsWhatItUses + startCompiling),
        /// libnats, declared in the package's own header and loaded when the first NATS
        /// connection is set up (dlopen): the package builds the same with or without
        /// libnats installed, no `juice` command pays for loading it and the libraries it
        /// brings at start, and installing it later gives the binary built before its
        /// fleet.
        .target(name: "CNATSLoader", dependencies: ["CDynamicLibrary"], path: "Sources/CNATSLoader"),
        /// The NATS client, a transport: a small safe layer on libnats (connections,
        /// JetStream streams and durable consumers, publishing in flights). Knows nothing
        /// of the domain, the plugins or the fleet's config.
        .target(name: "NATSClient", dependencies: ["JuicePrimitives", "Locking", "CNATSLoader"], swiftSettings: importsWhatItUses),
        /// The fleet's keys, URLs and subject scheme, which the NATS client addresses the
        /// fleet by.
        .target(
            name: "FleetConfiguration", dependencies: ["JuicePrimitives", "JuiceMakerPluginKit", "JuiceMakerCore", "JuiceJSON"],
            swiftSettings: importsWhatItUses + startCompiling),

        // Plugins: one front-end module each, importing the plugin kit, the core, the bus,
        // Locking, Spawning and transports only.
        .target(
            name: "LoggerPlugin", dependencies: ["JuiceMakerPluginKit", "JuiceMakerCore", "JuiceJSON", "EventBus", "Locking"],
            path: "Plugins/Logger", swiftSettings: importsWhatItUses + startCompiling),
        .target(
            name: "CLINotifierPlugin", dependencies: ["JuiceMakerPluginKit", "JuiceMakerCore", "JuiceJSON", "EventBus", "Locking"],
            path: "Plugins/CLINotifier", swiftSettings: importsWhatItUses + startCompiling),
        .target(
            name: "WebhookPlugin",
            dependencies: ["JuiceMakerPluginKit", "JuiceMakerCore", "EventBus", "Locking", "JuiceHTTP"],
            path: "Plugins/Webhook", swiftSettings: importsWhatItUses + startCompiling),
        .target(
            name: "CommandPlugin", dependencies: ["JuiceMakerPluginKit", "JuiceMakerCore", "EventBus", "Locking", "Spawning"],
            path: "Plugins/Command", swiftSettings: importsWhatItUses + startCompiling),
        .target(
            name: "MetricsPlugin", dependencies: ["JuiceMakerPluginKit", "JuiceMakerCore", "JuiceJSON", "EventBus", "Locking"],
            path: "Plugins/Metrics", swiftSettings: importsWhatItUses + startCompiling),
        /// The `nats` durable subscriber: this machine's events published to the stream.
        .target(
            name: "NATSPlugin",
            dependencies: ["JuiceMakerPluginKit", "JuiceMakerCore", "JuicePrimitives", "EventBus", "Locking", "FleetConfiguration", "NATSClient"],
            path: "Plugins/NATS", swiftSettings: importsWhatItUses),
        /// The fleet's readers over the NATS client: a stream message checked as one
        /// machine's event (`FleetEvent`), and a durable consumer seen as an event journal
        /// (`ConsumerJournal`), which the fleet commands read and deliver from.
        .target(
            name: "FleetReaders", dependencies: ["NATSClient", "FleetConfiguration", "JuiceMakerCore", "JuiceMakerPluginKit", "Locking"],
            swiftSettings: importsWhatItUses),

        /// Starts the background `juice deliver` once the command that hands its events on
        /// has exited (fork, wait for the parent's end, exec).
        .target(name: "CStartAfterExit", path: "Sources/CStartAfterExit"),

        // Executables
        /// The CLI as a library (so tests and fuzzers import it); `juice` is its thin process.
        .target(
            name: "JuiceCLI",
            dependencies: [
                "Locking", "JuiceJSON", "JuiceMakerCore", "JuiceMakerPluginKit", "JuiceDelivery", "SQLiteStore", "LoggerPlugin",
                "CLINotifierPlugin", "WebhookPlugin", "CommandPlugin", "MetricsPlugin", "CReadline", "CDynamicLibrary", "FleetConfiguration",
                "NATSClient", "FleetReaders", "NATSPlugin",
            ], swiftSettings: startCompiling),
        .executableTarget(
            name: "juice", dependencies: ["JuiceCLI"], exclude: ["start-order.txt"], swiftSettings: startCompiling,
            linkerSettings: startLinking),
        /// The floor `juice-bench cli` measures `juice --version` against: one line printed
        /// with only FoundationEssentials loaded. Not for users.
        .executableTarget(name: "juice-hello", path: "Sources/JuiceHello", swiftSettings: startCompiling, linkerSettings: startLinking),
        .executableTarget(
            name: "JuiceBench",
            dependencies: [
                "Locking", "EventBus", "JuiceJSON", "JuicePrimitives", "JuiceMakerCore", "JuiceMakerPluginKit", "JuiceDelivery", "SQLiteStore",
                "CSQLite",
                "LoggerPlugin",
                "CLINotifierPlugin", "WebhookPlugin", "JuiceCLI", "FleetConfiguration", "JuiceMakerTesting", "Spawning",
                "NATSClient", "FleetReaders", "NATSPlugin", "CNATSLoader",
            ]),
        /// A small process the store tests start many times at once (orders, restocks, crashes).
        .executableTarget(name: "JuiceStoreProbe", dependencies: ["Locking", "JuiceMakerCore", "SQLiteStore"]),

        // Tests
        /// What every test target shares (the test tags, `juice` run in a sandbox, child
        /// processes, the loopback HTTP server, temporary directories, threads, a plugin
        /// rig, a seeded generator): a library, not a test target.
        .target(
            name: "JuiceTestSupport",
            dependencies: [
                "JuiceJSON", "JuiceMakerCore", "JuiceMakerPluginKit", "JuiceMakerTesting", "EventBus", "Locking", "CTLS", "CDynamicLibrary",
                "CNATSLoader",
            ],
            path: "Tests/Support",
            // The loopback server's TLS calls libssl itself (the HTTP client loads it at run time).
            linkerSettings: [.linkedLibrary("ssl", .when(platforms: [.linux]))]),
        /// The shared library's own tests, and the check that every suite says its kind.
        .testTarget(name: "JuiceTestSupportTests", dependencies: ["JuiceTestSupport"]),
        .testTarget(name: "LockingTests", dependencies: ["Locking", "JuiceTestSupport"]),
        .testTarget(name: "JSONTests", dependencies: ["JuiceJSON", "JuiceTestSupport"]),
        /// The bench's method (the orders its groups run in) and its start-order reader;
        /// not its timings, which no test asserts.
        .testTarget(name: "JuiceBenchTests", dependencies: ["JuiceBench", "JuiceTestSupport"]),
        .testTarget(name: "EventBusTests", dependencies: ["EventBus", "Locking", "JuiceTestSupport"]),
        .testTarget(
            name: "JuiceMakerCoreTests",
            dependencies: [
                "JuicePrimitives", "JuiceMakerCore", "JuiceMakerPluginKit", "JuiceMakerTesting", "EventBus", "Locking", "JuiceTestSupport",
            ]),
        /// A SQLite VFS over the default one that fails the Nth write, sync or truncate,
        /// for the store's I/O fault tests.
        .target(name: "CFaultVFS", dependencies: ["CSQLite"], path: "Tests/CFaultVFS"),
        .testTarget(
            name: "SQLiteStoreTests",
            // The damage fuzzer runs a few of its copies through the real `juice store recover`.
            dependencies: ["SQLiteStore", "Locking", "CSQLite", "CFaultVFS", "JuiceStoreProbe", "juice", "JuiceTestSupport"]),
        .testTarget(
            name: "PluginTests",
            dependencies: ["LoggerPlugin", "CLINotifierPlugin", "MetricsPlugin", "JuiceJSON", "JuiceMakerPluginKit", "Locking", "JuiceTestSupport"]),
        .testTarget(
            name: "JuiceCLITests",
            dependencies: [
                "JuiceCLI", "juice", "JuiceJSON", "JuiceMakerCore", "JuiceMakerPluginKit", "SQLiteStore", "CSQLite", "Locking", "JuiceTestSupport",
            ]),
        /// The HTTP/1.1 client against loopback servers (plain and TLS) and its parsers
        /// against the RFCs' vectors.
        .testTarget(
            name: "JuiceHTTPTests",
            dependencies: ["JuiceHTTP", "JuiceMakerCore", "JuiceMakerPluginKit", "CCrypto", "Locking", "JuiceTestSupport"]),
        .testTarget(
            name: "DeliveryTests",
            dependencies: [
                "WebhookPlugin", "CommandPlugin", "JuiceJSON", "JuiceMakerPluginKit", "JuiceDelivery", "JuiceCLI", "juice", "Locking",
                "JuiceTestSupport",
            ]),
        /// The NATS client and the fleet's addressing (URLs, subjects, names) without a
        /// server.
        .testTarget(
            name: "NATSClientTests",
            dependencies: ["FleetConfiguration", "JuicePrimitives", "JuiceMakerCore", "JuiceMakerPluginKit", "JuiceTestSupport", "NATSClient"]),
        /// Real `nats-server -js` processes on loopback; skipped (one line) without NATS.
        .testTarget(
            name: "FleetTests",
            dependencies: [
                "JuiceCLI", "juice", "JuiceMakerCore", "JuiceMakerPluginKit", "JuiceDelivery", "FleetConfiguration", "Locking", "CCrypto",
                "JuiceTestSupport", "SQLiteStore", "WebhookPlugin",
                "NATSClient", "FleetReaders", "NATSPlugin",
            ]),

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
            name: "FuzzRetryAfter", dependencies: ["FuzzSupport", "JuiceHTTP"], path: "Tests/Fuzz/FuzzRetryAfter", exclude: ["corpus"]),
        .executableTarget(
            name: "FuzzHTTPResponse", dependencies: ["FuzzSupport", "JuiceHTTP"], path: "Tests/Fuzz/FuzzHTTPResponse", exclude: ["corpus"]),
        /// A stream message from another machine, as the fleet's readers check it.
        .executableTarget(
            name: "FuzzFleetEvent", dependencies: ["FuzzSupport", "FleetReaders", "FleetConfiguration", "JuiceMakerCore"],
            path: "Tests/Fuzz/FuzzFleetEvent", exclude: ["corpus"]),
    ],
    swiftLanguageModes: [.v6]
)
