import FleetConfiguration
import Foundation
import JuiceMakerCore
import JuiceMakerPluginKit
import Locking
import NATSClient
import SQLiteStore
import Spawning

/// A `nats-server -js` on a free loopback port with a store under the bench's directory.
final class BenchNATSServer {
    let url: String
    private let process: ChildProcess

    init(directory: String) throws {
        let candidates = ["/usr/sbin/nats-server", "/usr/bin/nats-server", "/usr/local/bin/nats-server", "/opt/homebrew/bin/nats-server"]
        guard let binary = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw BenchError.unavailable("nats-server (apt-get install nats-server)")
        }
        let port = try Self.freePort()
        url = "nats://127.0.0.1:\(port)"
        let log = directory + "/nats.log"
        process = try ChildProcess.start(
            binary, ["-js", "-a", "127.0.0.1", "-p", "\(port)", "-sd", directory + "/jetstream", "-l", log], [:], stdout: nil)
        let deadline = ContinuousClock.now + .seconds(15)
        while ContinuousClock.now < deadline {
            if let text = try? String(contentsOfFile: log, encoding: .utf8), text.contains("Server is ready") { return }
            // Between looks at the server's log: another process's file sends no signal;
            // bounded by the deadline above.
            usleep(20_000)
        }
        process.stop()
        throw BenchError.failed("fleet bench: nats-server did not start on port \(port)")
    }

    func stop() { process.stop() }

    /// CPU seconds (user + system) the server used so far, from `/proc/<pid>/stat`;
    /// `nil` where there is no `/proc`.
    func cpuSeconds() -> Double? {
        guard let text = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/stat", encoding: .utf8),
            let close = text.lastIndex(of: ")")
        else { return nil }
        // After the command's closing parenthesis: state is field 3, utime 14, stime 15.
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        return (user + system) / ticks
    }

    /// Checks that `stream` holds `expected` messages, then deletes it (freeing its disk).
    func checkAndDelete(stream: String, expected: Int) throws {
        let connection = try NATSConnection(NATSOptions(servers: [url], reconnects: false, name: "juice-bench check"))
        defer { connection.close() }
        let count = try connection.streamMessageCount(stream)
        guard count == UInt64(expected) else {
            throw BenchError.failed("fleet bench: stream \(stream) holds \(count) messages, not \(expected)")
        }
        try connection.deleteStream(stream)
    }

    private static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw BenchError.unavailable("socket: \(errno)") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { throw BenchError.unavailable("bind: \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
