#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Where one of a child's standard descriptors (0, 1 or 2) comes from.
package enum StandardStream: Sendable, Equatable {
    /// `/dev/null`.
    case null
    /// A descriptor of this process, duplicated into the child.
    case descriptor(Int32)
    /// A file for the child to write, created (mode 0600) or emptied.
    case file(String)
}

/// A program to start with `posix_spawn`, and what it starts with. Not Foundation's
/// `Process`: FoundationEssentials, all `juice` may use of Foundation, has none, and on
/// Linux `Process.waitUntilExit()` looks at the child only every 50 ms.
///
/// The child gets exactly `environment`, the three standard descriptors as asked, no
/// other descriptor (where the system can close the rest at spawn), an empty signal mask
/// and default signal dispositions, whatever this process blocks or ignores.
package struct ProgramLaunch: Sendable {
    /// The program's path (not looked up on the `PATH`).
    package var executable: String
    /// The arguments after the program's own name.
    package var arguments: [String]
    package var environment: [String: String]
    /// Where it starts; this process's directory when `nil`.
    package var workingDirectory: String? = nil
    package var standardInput = StandardStream.null
    package var standardOutput = StandardStream.null
    package var standardError = StandardStream.null
    /// Whether it leads a process group of its own, which `ChildProcess` signals and
    /// ends with it; otherwise it stays in this process's group (and gets the terminal's
    /// Ctrl-C with it).
    package var leadsProcessGroup = false

    /// `executable` with `arguments`, exactly `environment`, and the rest as above until set.
    package init(executable: String, arguments: [String] = [], environment: [String: String] = [:]) {
        self.executable = executable
        self.arguments = arguments
        self.environment = environment
    }

    /// Starts the program and returns its process id; the caller reaps it
    /// (`waitForTermination(of:)`) or hands it to a `ChildProcess`. Throws the system's
    /// error number when it cannot be started (no such file, not executable, no
    /// working directory).
    package func spawn() throws(SpawnError) -> pid_t {
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
        for (descriptor, stream) in [(Int32(0), standardInput), (1, standardOutput), (2, standardError)] {
            switch stream {
            case .null: posix_spawn_file_actions_addopen(&actions, descriptor, "/dev/null", descriptor == 0 ? O_RDONLY : O_WRONLY, 0)
            case .descriptor(let source): posix_spawn_file_actions_adddup2(&actions, source, descriptor)
            case .file(let path): posix_spawn_file_actions_addopen(&actions, descriptor, path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            }
        }
        if let closeFrom = Self.addCloseFrom { _ = closeFrom(&actions, 3) }
        if let workingDirectory {
            guard let changeDirectory = Self.addChangeDirectory else { throw SpawnError(code: ENOSYS) }
            let added = changeDirectory(&actions, workingDirectory)
            guard added == 0 else { throw SpawnError(code: added) }
        }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD, SIGUSR1, SIGUSR2] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF
        if leadsProcessGroup {
            posix_spawnattr_setpgroup(&attributes, 0)
            flags |= POSIX_SPAWN_SETPGROUP
        }
        posix_spawnattr_setflags(&attributes, Int16(flags))
        var child: pid_t = 0
        let spawned = posix_spawn(&child, executable, &actions, &attributes, argv, envp)
        guard spawned == 0 else { throw SpawnError(code: spawned) }
        return child
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

/// How a program ended: its exit status, or the signal that killed it.
package struct Termination: Sendable, Equatable {
    /// The exit status, or the signal's number when `killedBySignal`.
    package let status: Int32
    package let killedBySignal: Bool

    /// The status as a shell reports it: the exit status, or 128 + the signal.
    package var shellStatus: Int32 { killedBySignal ? 128 + status : status }

    /// Reads a status word from `waitpid` or `wait4` of a program that has ended.
    init(waitStatus status: Int32) {
        let signal = status & 0x7F
        self = signal == 0 ? Termination(status: (status >> 8) & 0xFF, killedBySignal: false) : Termination(status: signal, killedBySignal: true)
    }

    package init(status: Int32, killedBySignal: Bool) {
        self.status = status
        self.killedBySignal = killedBySignal
    }
}

/// Blocks until the child `process` has ended, reaps it and returns how it ended and
/// the resources it used (`ru_maxrss`, its peak resident set size, in kilobytes on
/// Linux). Throws the system's error number when there is no such child to wait for.
package func waitForTermination(of process: pid_t) throws(SpawnError) -> (termination: Termination, usage: rusage) {
    var status: Int32 = 0
    var usage = rusage()
    while wait4(process, &status, 0, &usage) < 0 {
        guard errno == EINTR else { throw SpawnError(code: errno) }
    }
    return (Termination(waitStatus: status), usage)
}

/// Starting or waiting for a program failed with the system error `code`.
package struct SpawnError: Error, Sendable, CustomStringConvertible {
    /// The `errno` value.
    package let code: Int32
    /// The system's text for `code`.
    package var description: String { String(cString: strerror(code)) }

    package init(code: Int32) { self.code = code }
}

extension ProgramLaunch {
    /// The executable `program` names, as a shell finds it: a name with `/` as is
    /// (relative to `directory`), else the first of that name in the directories of
    /// `path` (`PATH`'s form; `/usr/local/bin:/usr/bin:/bin` when `nil`). `nil` when
    /// there is none this process may execute.
    package static func executable(_ program: String, in directory: String, path: String?) -> String? {
        if program.contains("/") {
            let absolute = program.hasPrefix("/") ? program : directory + "/" + program
            return access(absolute, X_OK) == 0 ? absolute : nil
        }
        for folder in (path ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":") {
            let candidate = "\(folder)/\(program)"
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }
}
