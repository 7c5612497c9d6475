import Foundation
import Locking
import Spawning

/// The fleet bench's long-running children (`nats-server`, `juice deliver --follow`,
/// `juice fleet watch`): stdin and stderr on /dev/null, stdout to a file, to /dev/null,
/// or read line by line on a thread of its own (`onLine`).
extension ChildProcess {
    static func start(
        _ executable: String, _ arguments: [String], _ environment: [String: String], stdout: String?,
        onLine: (@Sendable (String) -> Void)? = nil
    ) throws -> ChildProcess {
        var launch = ProgramLaunch(executable: executable, arguments: arguments, environment: environment)
        var output: [Int32] = [-1, -1]
        if onLine != nil {
            guard pipe(&output) == 0 else { throw BenchError.unavailable("pipe: \(errno)") }
            _ = fcntl(output[0], F_SETFD, FD_CLOEXEC)
            launch.standardOutput = .descriptor(output[1])
        } else if let stdout {
            launch.standardOutput = .file(stdout)
        }
        let process = ChildProcess()
        defer { if output[1] >= 0 { close(output[1]) } }
        do throws(SpawnError) {
            try process.run(launch)
        } catch {
            if output[0] >= 0 { close(output[0]) }
            throw BenchError.unavailable("\(executable) (posix_spawn failed: \(error.description))")
        }
        if let onLine {
            let descriptor = output[0]
            startDetachedThread(named: "bench.lines") {
                var pending: [UInt8] = []
                var buffer = [UInt8](repeating: 0, count: 65_536)
                while true {
                    let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                    if count < 0, errno == EINTR { continue }
                    guard count > 0 else { break }
                    pending += buffer[0..<count]
                    while let newline = pending.firstIndex(of: 10) {
                        onLine(String(decoding: pending[..<newline], as: UTF8.self))
                        pending.removeSubrange(...newline)
                    }
                }
                close(descriptor)
            }
        }
        return process
    }

    /// SIGTERM, then SIGKILL if it has not ended within 5 s; returns once it is reaped.
    func stop() {
        terminate()
        guard waitForExit(until: .now + .seconds(5)) == nil else { return }
        send(SIGKILL)
        _ = waitForExit(until: nil)
    }
}
