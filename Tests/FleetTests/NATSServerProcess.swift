import Foundation
import JuiceTestSupport
import Locking
import Testing

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

    /// A server in a temporary directory of its own (its name starting with `prefix`), started.
    static func started(prefix: String = "juice-fleet-") async throws -> NATSServerProcess {
        // A free port is free when asked, not when nats-server binds it: tests running
        // side by side may take it in between. Another port is tried then.
        for attempt in 1...3 {
            let directory = try TemporaryDirectory(prefix: prefix)
            let server = try NATSServerProcess(directory: directory, ownsDirectory: true)
            do {
                try await server.start()
                return server
            } catch let error as FleetTestError where attempt < 3 && error.description.contains("address already in use") {
                continue
            }
        }
        throw FleetTestError("nats-server did not start on any of three free ports")
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
        NATSRequirement.checkDeclared("starts nats-server")
        try await offPool { try self.startBlocking() }
    }

    /// Stops it, off the cooperative pool.
    func halt() async {
        _ = try? await offPool { self.stop() }
    }

    private func startBlocking() throws {
        guard let binary = NATSRequirement.serverBinary else { throw FleetTestError("no nats-server") }
        try? FileManager.default.removeItem(atPath: logPath)
        var arguments = ["-js", "-a", "127.0.0.1", "-p", "\(port)", "-sd", storeDirectory, "-n", name, "-l", logPath] + extraArguments
        if let clusterPort {
            arguments += ["--cluster_name", "juice", "--cluster", "nats://127.0.0.1:\(clusterPort)"]
            if !routes.isEmpty { arguments += ["--routes", routes.map { "nats://127.0.0.1:\($0)" }.joined(separator: ",")] }
        }
        let process = try Program(binary, arguments).start(inputFile: "/dev/null", errorsTo: logPath + ".stderr").process
        lock.withLock { $0 = process }
        var ready = false
        _ = eventuallyOnThisThread(within: .seconds(15), every: .milliseconds(20)) {
            ready = (try? String(contentsOfFile: logPath, encoding: .utf8))?.contains("Server is ready") ?? false
            return ready || !process.isRunning
        }
        if ready { return }
        let log = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
        stop()
        throw FleetTestError("nats-server \(name) did not start on port \(port): \(log.suffix(600))")
    }

    /// Stops it (SIGTERM, then SIGKILL after 5 s) and waits for it to exit.
    func stop() {
        guard let process = lock.withLock({ $0.take() }) else { return }
        terminate(process)
    }

    /// Kills it with SIGKILL (no shutdown at all) and waits for it to exit.
    func kill9() {
        guard let process = lock.withLock({ $0.take() }) else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    deinit { stop() }
}

import NATSClient

extension NATSServerProcess {
    /// A client connection to it (no reconnects), as a test's own NATS client.
    func connect() throws -> NATSConnection {
        try NATSConnection(NATSOptions(servers: [url], timeout: 5, reconnects: false, name: "test"))
    }
}
