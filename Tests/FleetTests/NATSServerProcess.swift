import Foundation
import JuiceTestSupport
import Locking
import Testing

/// Whether the fleet's integration tests can run here: the NATS plugin was built
/// (libnats-dev installed) and a `nats-server` binary exists.
enum FleetEnvironment {
    static let serverBinary: String? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let directories = path.split(separator: ":").map(String.init) + ["/usr/sbin", "/usr/local/sbin", "/usr/local/bin", "/opt/homebrew/bin"]
        return directories.map { "\($0)/nats-server" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    static var isPluginBuilt: Bool {
        #if canImport(NATSPlugin)
        true
        #else
        false
        #endif
    }

    /// Whether the fleet suites run: where libnats and nats-server are here, and always
    /// where the run requires them (`JUICE_REQUIRE_FLEET=1`, which `.ci/run` sets):
    /// there a missing one fails the suites instead of skipping them, so CI cannot
    /// pass on a skip.
    static var isAvailable: Bool { isRequired || (isPluginBuilt && serverBinary != nil) }

    static var isRequired: Bool { ProcessInfo.processInfo.environment["JUICE_REQUIRE_FLEET"] == "1" }

    /// The one line a run without NATS prints instead of the fleet tests.
    static let skipNote: Comment =
        "fleet tests skipped: needs libnats-dev (at build time) and nats-server (sudo apt-get install nats-server libnats-dev; .ci/run does)"
}

/// Runs `body` on a thread of its own and waits for it without holding one of Swift's
/// cooperative threads: these tests wait for processes and servers for seconds, and
/// the pool (as wide as the machine has cores) is shared with every other test.
func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread {
            do { continuation.resume(returning: try body()) } catch { continuation.resume(throwing: error) }
        }.start()
    }
}

/// A port no one listens on now: bound to port 0, read back, released.
func freeLoopbackPort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw FleetTestError("socket: \(errno)") }
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = 0
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
    }
    guard bound else { throw FleetTestError("bind: \(errno)") }
    return Int(UInt16(bigEndian: address.sin_port))
}

struct FleetTestError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// One real `nats-server -js` on 127.0.0.1 with a store directory of its own.
/// Stopped by `stop()`, and in any case when this value goes away (also when a test
/// fails), so no server outlives its test.
final class NATSServerProcess: @unchecked Sendable {
    // @unchecked Sendable: `process` is behind `lock`; the rest is set in init.
    let name: String
    let port: Int
    let clusterPort: Int?
    let storeDirectory: String
    let logPath: String
    private let routes: [Int]
    private let extraArguments: [String]
    private let lock = Locked<Process?>(nil)
    /// The directory `started()` made, kept as long as the server.
    private let owned: TemporaryDirectory?

    /// A server in a temporary directory of its own, started.
    static func started() async throws -> NATSServerProcess {
        let directory = try TemporaryDirectory(prefix: "juice-fleet-")
        let server = try NATSServerProcess(directory: directory, ownsDirectory: true)
        try await server.start()
        return server
    }

    /// - Parameter cluster: this node's cluster port and the other nodes' cluster ports.
    init(
        name: String = "n1", directory: TemporaryDirectory, port: Int? = nil, cluster: (port: Int, routes: [Int])? = nil,
        arguments: [String] = [], ownsDirectory: Bool = false
    ) throws {
        extraArguments = arguments
        owned = ownsDirectory ? directory : nil
        self.name = name
        self.port = try port ?? freeLoopbackPort()
        clusterPort = cluster?.port
        routes = cluster?.routes ?? []
        storeDirectory = directory.file("js-\(name)")
        logPath = directory.file("nats-\(name).log")
    }

    var url: String { "nats://127.0.0.1:\(port)" }

    /// Starts it and returns once it accepts clients (its log says "Server is ready").
    func start() async throws {
        try await offPool { try self.startBlocking() }
    }

    /// Stops it, off the cooperative pool.
    func halt() async {
        _ = try? await offPool { self.stop() }
    }

    private func startBlocking() throws {
        guard let binary = FleetEnvironment.serverBinary else { throw FleetTestError("no nats-server") }
        try? FileManager.default.removeItem(atPath: logPath)
        var arguments = ["-js", "-a", "127.0.0.1", "-p", "\(port)", "-sd", storeDirectory, "-n", name, "-l", logPath] + extraArguments
        if let clusterPort {
            arguments += ["--cluster_name", "juice", "--cluster", "nats://127.0.0.1:\(clusterPort)"]
            if !routes.isEmpty { arguments += ["--routes", routes.map { "nats://127.0.0.1:\($0)" }.joined(separator: ",")] }
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        lock.withLock { $0 = process }
        let deadline = Date(timeIntervalSinceNow: 15)
        while Date() < deadline {
            if let log = try? String(contentsOfFile: logPath, encoding: .utf8), log.contains("Server is ready") { return }
            guard process.isRunning else { break }
            usleep(20_000)
        }
        let log = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
        stop()
        throw FleetTestError("nats-server \(name) did not start on port \(port): \(log.suffix(600))")
    }

    /// Stops it (SIGTERM, then SIGKILL after 5 s) and waits for it to exit.
    func stop() {
        guard let process = lock.withLock({ $0.take() }) else { return }
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGTERM)
        let deadline = Date(timeIntervalSinceNow: 5)
        while process.isRunning, Date() < deadline { usleep(10_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    /// Kills it with SIGKILL (no shutdown at all) and waits for it to exit.
    func kill9() {
        guard let process = lock.withLock({ $0.take() }) else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    deinit { stop() }
}

/// A `juice` machine in a temporary directory: its own config (machine name, store,
/// subscribers) and store, run as real `juice` processes.
final class FleetMachine: @unchecked Sendable {
    // @unchecked Sendable: every property is set in init and never changed.
    let machine: String
    let directory: TemporaryDirectory
    let configPath: String

    /// `extra` is more top-level config members as JSON text (`"fleet": {…}`).
    init(_ machine: String, subscribers: String, extra: String = "", flushDeadlineSeconds: Double = 1) throws {
        self.machine = machine
        directory = try TemporaryDirectory(prefix: "juice-fleet-")
        configPath = directory.file("config.json")
        let more = extra.isEmpty ? "" : ", \(extra)"
        let config =
            #"{"machine": "\#(machine)", "initialStock": 100000, "flushDeadlineSeconds": \#(flushDeadlineSeconds), "store": {"path": "juice.db"}, "subscribers": \#(subscribers)\#(more)}"#
        try Data(config.utf8).write(to: URL(fileURLWithPath: configPath))
    }

    /// The `juice` executable built beside this test bundle.
    static let binary: String = {
        let beside: (URL?) -> String? = { $0?.deletingLastPathComponent().appendingPathComponent("juice").path }
        let selfPath = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let candidates: [String?] = [
            beside(Bundle.main.executableURL), beside(selfPath.map { URL(fileURLWithPath: $0) }), beside(Bundle.main.bundleURL),
        ]
        return candidates.compactMap { $0 }.first { FileManager.default.isExecutableFile(atPath: $0) } ?? "juice"
    }()

    /// Starts `juice <arguments> --config …`; stdout and stderr go to files in the directory.
    func start(_ arguments: [String], input: Pipe? = nil, environment: [String: String] = [:]) throws -> (process: Process, stdout: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.binary)
        process.arguments = arguments + ["--config", configPath]
        process.environment = ["HOME": directory.path, "PATH": "/usr/bin:/bin", "LANG": "C", "NO_COLOR": "1"].merging(environment) { $1 }
        process.currentDirectoryURL = URL(fileURLWithPath: directory.path)
        let id = UUID().uuidString
        let stdout = directory.file("stdout-\(id)")
        let stderr = directory.file("stderr-\(id)")
        _ = FileManager.default.createFile(atPath: stdout, contents: nil)
        _ = FileManager.default.createFile(atPath: stderr, contents: nil)
        process.standardOutput = FileHandle(forWritingAtPath: stdout)
        process.standardError = FileHandle(forWritingAtPath: stderr)
        process.standardInput = input ?? FileHandle.nullDevice
        try process.run()
        return (process, stdout)
    }

    /// Runs `juice <arguments>` to the end: its exit status and standard output.
    @discardableResult
    func run(_ arguments: [String], environment: [String: String] = [:]) async throws -> (status: Int32, output: String) {
        try await offPool { try self.runBlocking(arguments, environment: environment) }
    }

    private func runBlocking(_ arguments: [String], environment: [String: String]) throws -> (status: Int32, output: String) {
        let (status, output, _) = try runCapturingBlocking(arguments, environment: environment)
        return (status, output)
    }

    /// Runs `juice <arguments>` to the end: its exit status, standard output and standard error.
    func runCapturing(_ arguments: [String], environment: [String: String] = [:]) async throws -> (status: Int32, output: String, errors: String) {
        try await offPool { try self.runCapturingBlocking(arguments, environment: environment) }
    }

    private func runCapturingBlocking(_ arguments: [String], environment: [String: String]) throws -> (status: Int32, output: String, errors: String)
    {
        let (process, stdout) = try start(arguments, environment: environment)
        process.waitUntilExit()
        return (process.terminationStatus, Self.read(stdout), Self.read(Self.errorsPath(ofOutput: stdout)))
    }

    /// The stderr file of the process whose stdout file `start` returned.
    static func errorsPath(ofOutput stdout: String) -> String {
        stdout.replacingOccurrences(of: "/stdout-", with: "/stderr-")
    }

    /// A file's text, empty when it cannot be read.
    static func read(_ path: String) -> String {
        (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
    }

    /// The ids of every event in the machine's journal (`juice events --json`).
    func eventIDs() async throws -> [String] {
        let (status, output) = try await run(["events", "--json", "--limit", "100000"])
        guard status == 0 else { throw FleetTestError("juice events exited \(status)") }
        return output.split(separator: "\n").compactMap { line in
            guard let data = line.data(using: .utf8), let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return nil }
            return object["id"] as? String
        }
    }

    /// Everything the machine's `juice` processes wrote to stderr.
    var errors: String {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return files.filter { $0.hasPrefix("stderr-") }.sorted().compactMap {
            try? String(contentsOfFile: directory.file($0), encoding: .utf8)
        }.joined()
    }
}

/// Waits for `process` to exit, off the cooperative pool.
func exited(_ process: Process) async {
    _ = try? await offPool { process.waitUntilExit() }
}

/// `terminate`, off the cooperative pool.
func terminated(_ process: Process, within seconds: Double = 5) async {
    _ = try? await offPool { terminate(process, within: seconds) }
}

/// Stops `process` (SIGTERM, SIGKILL after `seconds`) and waits for it.
func terminate(_ process: Process, within seconds: Double = 5) {
    guard process.isRunning else { return }
    kill(process.processIdentifier, SIGTERM)
    let deadline = Date(timeIntervalSinceNow: seconds)
    while process.isRunning, Date() < deadline { usleep(10_000) }
    if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    process.waitUntilExit()
}

#if canImport(NATSClient)
import NATSClient

extension FleetMachine {
    /// A machine that publishes to `server`, after it made and published `orders`.
    static func publishing(_ machine: String, to server: NATSServerProcess, orders: [String] = ["kiwi"]) async throws -> FleetMachine {
        let made = try FleetMachine(machine, subscribers: FleetIntegrationTests.natsSubscriber(server.url))
        for juice in orders { #expect(try await made.run(["order", juice]).status == 0) }
        #expect(try await made.run(["deliver"]).status == 0, "\(made.errors)")
        return made
    }
}

extension NATSServerProcess {
    /// A client connection to it (no reconnects), as a test's own NATS client.
    func connect() throws -> NATSConnection {
        try NATSConnection(NATSOptions(servers: [url], timeout: 5, reconnects: false, name: "test"))
    }
}
#endif
