#if canImport(NATSClient)
import CNATS
import FleetConfiguration
import Foundation
import JuiceMakerCore
import JuiceMakerPluginKit
import Locking
import NATSClient
import SQLiteStore

/// A child process started with `posix_spawn`: stdout to a file, to /dev/null, or read
/// line by line on a thread of its own (`onLine`); stopped with SIGTERM (then SIGKILL).
final class ChildProcess: @unchecked Sendable {
    // @unchecked Sendable: `pid` is set in init; `stopped` is behind its lock.
    let pid: pid_t
    private let stopped = Locked(false)

    init(
        _ executable: String, _ arguments: [String], _ environment: [String: String], stdout: String?,
        onLine: (@Sendable (String) -> Void)? = nil
    ) throws {
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        var fds: [Int32] = [-1, -1]
        if onLine != nil {
            guard pipe(&fds) == 0 else { throw BenchError.unavailable("pipe: \(errno)") }
            posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
            posix_spawn_file_actions_addclose(&actions, fds[0])
        } else {
            posix_spawn_file_actions_addopen(&actions, 1, stdout ?? "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        }
        var child: pid_t = 0
        let spawned = posix_spawn(&child, executable, &actions, nil, argv, envp)
        if fds[1] >= 0 { close(fds[1]) }
        guard spawned == 0 else {
            if fds[0] >= 0 { close(fds[0]) }
            throw BenchError.unavailable("\(executable) (posix_spawn failed with error \(spawned))")
        }
        pid = child
        if let onLine {
            let descriptor = fds[0]
            let thread = Thread {
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
            thread.start()
        }
    }

    func stop() {
        guard
            stopped.withLock({ state -> Bool in
                defer { state = true }; return !state
            })
        else { return }
        kill(pid, SIGTERM)
        var status: Int32 = 0
        for _ in 0..<500 {
            if waitpid(pid, &status, WNOHANG) == pid { return }
            usleep(10_000)
        }
        kill(pid, SIGKILL)
        _ = waitpid(pid, &status, 0)
    }
}
#endif
