#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Locking

/// A started program, reaped by a blocking wait on a thread of its own, which reports
/// its end once (`terminated`) and lets others wait for it (`waitForExit(until:)`).
///
/// A program launched with `leadsProcessGroup` gets its signals through its group, and
/// the group ends with it: what it started and left running is killed when it exits,
/// so nothing it started outlives it.
package final class ChildProcess: Sendable {
    private struct State {
        var pid: pid_t = 0
        var leadsGroup = false
        var handler: (@Sendable (ChildProcess, Termination) -> Void)?
        var termination: Termination?
    }

    private let state = LockedCondition(State())

    package init() {}

    /// The child's process id once `run` returned; 0 before.
    package var processIdentifier: pid_t { state.withLock { $0.pid } }

    /// Starts `launch`; `terminated` runs once, on a thread of its own, when the program
    /// has exited. Throws the system's error number when it cannot be started.
    package func run(
        _ launch: ProgramLaunch, terminated: @escaping @Sendable (ChildProcess, Termination) -> Void = { _, _ in }
    )
        throws(SpawnError)
    {
        let child = try launch.spawn()
        let leadsGroup = launch.leadsProcessGroup
        state.change { state in
            state.pid = child
            state.leadsGroup = leadsGroup
            state.handler = terminated
        }
        startDetachedThread(named: "juice.child.wait") { [self, child] in
            guard let termination = try? waitForTermination(of: child).termination else { return }
            // The program is gone; what it left running in its group goes with it.
            if leadsGroup { kill(-child, SIGKILL) }
            let handler = state.change { state in
                defer { state.handler = nil }
                state.termination = termination
                return state.handler
            }
            handler?(self, termination)
        }
    }

    /// How the program ended once it has been reaped by `deadline` (`nil`: no deadline);
    /// `nil` if it has not ended by then.
    package func waitForExit(until deadline: ContinuousClock.Instant?) -> Termination? {
        var termination: Termination?
        _ = state.wait(until: deadline) { state in
            termination = state.termination
            return termination != nil
        }
        return termination
    }

    /// Sends SIGTERM.
    package func terminate() { send(SIGTERM) }

    /// Sends `signal` to the program (to its process group if it leads one), if it was
    /// started and has not been reaped (never to process 0, this process's own group).
    package func send(_ signal: Int32) {
        let (pid, leadsGroup) = state.withLock { state in (state.termination == nil ? state.pid : 0, state.leadsGroup) }
        if pid > 0 { kill(leadsGroup ? -pid : pid, signal) }
    }
}
