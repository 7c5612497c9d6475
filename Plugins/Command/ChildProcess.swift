#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Locking

/// A program started with `posix_spawn`, reaped by a blocking `waitpid` on a thread of
/// its own: what the command subscriber needed of Foundation's `Process`, which
/// FoundationEssentials does not have.
///
/// The child gets `standardInput` as fd 0, /dev/null as fd 1, `standardError` as fd 2,
/// no other descriptor (where the system can close the rest at spawn), an empty signal
/// mask and default signal dispositions. It leads a process group of its own, which
/// its signals go to and which ends with it: what it started and left running is
/// killed when it exits, so nothing it started outlives it.
final class ChildProcess: Sendable {
    /// How a program ended: its exit status, or the signal that killed it.
    struct Termination: Sendable {
        let status: Int32
        let killedBySignal: Bool
    }

    private let state = Locked<(pid: pid_t, handler: (@Sendable (ChildProcess, Termination) -> Void)?)>((0, nil))

    /// The child's process id once `run` returned; 0 before.
    var processIdentifier: pid_t { state.withLock { $0.pid } }

    /// Starts `executable` with `arguments` (without the program itself), exactly
    /// `environment`, in `workingDirectory` if given; `terminated` runs once, on a
    /// thread of its own, when it has exited. Throws the system's error number.
    func run(
        executable: String, arguments: [String], environment: [String: String], workingDirectory: String?,
        standardInput: Int32, standardError: Int32,
        terminated: @escaping @Sendable (ChildProcess, Termination) -> Void
    ) throws(ChildProcessError) {
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        #if canImport(Darwin)
        var actions: SpawnActions = nil
        var attributes: posix_spawnattr_t?
        #else
        var actions = SpawnActions()
        var attributes = posix_spawnattr_t()
        #endif
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawn_file_actions_adddup2(&actions, standardInput, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, standardError, 2)
        if let closeFrom = Self.addCloseFrom { _ = closeFrom(&actions, 3) }
        if let workingDirectory {
            guard let changeDirectory = Self.addChangeDirectory else { throw ChildProcessError(code: ENOSYS) }
            let added = changeDirectory(&actions, workingDirectory)
            guard added == 0 else { throw ChildProcessError(code: added) }
        }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD, SIGUSR1, SIGUSR2] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP))
        var child: pid_t = 0
        let spawned = posix_spawn(&child, executable, &actions, &attributes, argv, envp)
        guard spawned == 0 else { throw ChildProcessError(code: spawned) }
        state.withLock { $0 = (child, terminated) }
        startDetachedThread(named: "juice.command.wait") { [self, child] in
            var status: Int32 = 0
            while waitpid(child, &status, 0) < 0 {
                guard errno == EINTR else { return }
            }
            // The program is gone; what it left running in its group goes with it.
            kill(-child, SIGKILL)
            let signal = status & 0x7F
            let termination =
                signal == 0
                ? Termination(status: (status >> 8) & 0xFF, killedBySignal: false)
                : Termination(status: signal, killedBySignal: true)
            let handler = state.withLock { state in
                defer { state.handler = nil }
                return state.handler
            }
            handler?(self, termination)
        }
    }

    /// Sends SIGTERM.
    func terminate() { send(SIGTERM) }

    /// Sends `signal` to the program's process group, if it was started (never to
    /// process 0, `juice`'s own group).
    func send(_ signal: Int32) {
        let pid = processIdentifier
        if pid > 0 { kill(-pid, signal) }
    }

    /// What `posix_spawn_file_actions_init` fills in (an optional pointer on Darwin).
    #if canImport(Darwin)
    private typealias SpawnActions = posix_spawn_file_actions_t?
    #else
    private typealias SpawnActions = posix_spawn_file_actions_t
    #endif
    private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<SpawnActions>, Int32) -> Int32
    private typealias AddChangeDirectory = @convention(c) (UnsafeMutablePointer<SpawnActions>, UnsafePointer<CChar>) -> Int32

    /// `posix_spawn_file_actions_addclosefrom_np` (glibc 2.34+), looked up at run time:
    /// the Glibc module leaves the GNU extensions out.
    private static let addCloseFrom: AddCloseFrom? = symbol("posix_spawn_file_actions_addclosefrom_np")
    /// `posix_spawn_file_actions_addchdir_np` (glibc 2.29+, macOS 10.15+).
    private static let addChangeDirectory: AddChangeDirectory? = symbol("posix_spawn_file_actions_addchdir_np")

    private static func symbol<T>(_ name: String) -> T? {
        #if canImport(Darwin)
        let handle = UnsafeMutableRawPointer(bitPattern: -2)  // RTLD_DEFAULT
        #else
        let handle: UnsafeMutableRawPointer? = nil  // RTLD_DEFAULT
        #endif
        guard let address = dlsym(handle, name) else { return nil }
        return unsafeBitCast(address, to: T.self)
    }
}

/// `posix_spawn` or a spawn step failed with the system error `code`.
struct ChildProcessError: Error, Sendable {
    let code: Int32
    var description: String { String(cString: strerror(code)) }
}
