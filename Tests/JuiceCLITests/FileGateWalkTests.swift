import FoundationEssentials
import JuiceMakerPluginKit
import JuiceTestSupport
import Testing

@testable import JuiceCLI

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Every door through which `juice` opens a file a person names: each command-line
/// option or argument that takes a path, and each plugin key that names a file, tried
/// with what an attacker or a slip of the keyboard gives it. None may hang, trap, write
/// onto the store, or answer with anything but one line and a documented exit code;
/// every byte of the store stays as it was.
@Suite(.tags(.process, .slow), .notInUnitRun, .offPool)
struct FileGateWalkTests {
    /// What a door is given.
    enum Hostile: String, CaseIterable {
        case fifo, directory, deviceZero, linkToStore, storeWAL, storeItself, unreadable
    }

    /// How a door uses its file.
    enum Use: Sendable { case reads, writes }

    /// A door: what it is called, how it uses its file, and the command line (or the
    /// config) that points it at `path`.
    struct Door: Sendable {
        let name: String
        let use: Use
        let arguments: @Sendable (String) -> [String]
        var config: (@Sendable (String) -> String)? = nil
    }

    /// The command line's doors, by the option or argument's name.
    static let commandLineDoors: [String: Door] = [
        "--config": Door(name: "--config", use: .reads, arguments: { ["--config", $0, "stock"] }),
        "--store": Door(name: "--store", use: .reads, arguments: { ["--store", $0, "store", "check"] }),
        "report --svg": Door(name: "report --svg", use: .writes, arguments: { ["report", "--svg", $0] }),
        "store backup <file>": Door(name: "store backup", use: .writes, arguments: { ["store", "backup", $0] }),
        "store recover --to": Door(name: "store recover --to", use: .writes, arguments: { ["store", "recover", "--to", $0] }),
    ]

    /// The plugins' doors, by `type.key` (the `fleet` section's too).
    static let pluginDoors: [String: Door] = {
        func subscriber(_ type: String, _ key: String, _ use: Use, extra: String = "") -> Door {
            Door(
                name: "\(type).\(key)", use: use, arguments: { _ in ["config", "check"] },
                config: { #"{"subscribers": [{"type": "\#(type)", \#(extra)"\#(key)": "\#($0)"}]}"# })
        }
        func fleet(_ key: String) -> Door {
            Door(
                name: "fleet.\(key)", use: .reads, arguments: { _ in ["config", "check"] },
                config: { #"{"subscribers": [], "fleet": {"url": "nats://127.0.0.1:1", "\#(key)": "\#($0)"}}"# })
        }
        let nats = #""url": "nats://127.0.0.1:1", "#
        return [
            "logger.path": subscriber("logger", "path", .writes),
            "metrics.path": subscriber("metrics", "path", .writes),
            "nats.credentials": subscriber("nats", "credentials", .reads, extra: nats),
            "nats.tlsCA": subscriber("nats", "tlsCA", .reads, extra: nats),
            "fleet.credentials": fleet("credentials"), "fleet.tlsCA": fleet("tlsCA"),
        ]
    }()

    /// Keys that name something juice does not open as a file: a program it starts, the
    /// directory the program runs in. (The certificate and key pairs are tried through
    /// the CA's door: one reader, `Fleet.tlsFiles`.)
    static let notOpened: Set = [
        "command.command", "command.workingDirectory", "nats.tlsCertificate", "nats.tlsKey", "fleet.tlsCertificate", "fleet.tlsKey",
    ]

    /// Every option and argument the command table declares with file completion, by
    /// the names `commandLineDoors` uses.
    static func declaredPathOptions() -> Set<String> {
        var found: Set<String> = []
        for option in CommandTable.globalOptions where option.completion == .files { found.insert("--\(option.name)") }
        func walk(_ spec: CommandSpec, path: [String]) {
            let prefix = path.joined(separator: " ")
            for option in spec.options where option.completion == .files { found.insert("\(prefix) --\(option.name)") }
            for argument in spec.arguments where argument.completion == .files { found.insert("\(prefix) <\(argument.name)>") }
            for child in spec.subcommands { walk(child, path: path + [child.name]) }
        }
        for child in CommandTable.root.subcommands { walk(child, path: [child.name]) }
        return found
    }

    /// Every plugin key (and `fleet` key) whose name says it holds a path.
    static func declaredPathKeys() -> Set<String> {
        var found: Set<String> = []
        let pathLike = ["path", "file", "directory", "credentials", "tls", "command"]
        for declaration in PluginRegistry.standard.declarations {
            for key in declaration.configuration where pathLike.contains(where: { key.name.lowercased().contains($0.lowercased()) }) {
                found.insert("\(declaration.type).\(key.name)")
            }
        }
        for key in ["credentials", "tlsCA", "tlsCertificate", "tlsKey"] { found.insert("fleet.\(key)") }
        return found
    }

    /// A door no walk knows fails here: it must pass the file gate and be tried below.
    @Test func everyDoorIsWalked() {
        let options = Self.declaredPathOptions()
        #expect(options == Set(Self.commandLineDoors.keys), "the command line's path options: \(options.sorted())")
        let keys = Self.declaredPathKeys()
        #expect(keys == Set(Self.pluginDoors.keys).union(Self.notOpened), "the plugins' path keys: \(keys.sorted())")
    }

    /// A sandbox with a store (in WAL mode, with events) and the hostile files beside it.
    static func sandbox() async throws -> JuiceSandbox {
        let sandbox = try JuiceSandbox(store: .environment, storeFile: "juice.db")
        #expect(try await sandbox.running(["order", "kiwi"]).status == 0)
        #expect(mkfifo(sandbox.file("fifo"), 0o600) == 0)
        #expect(mkdir(sandbox.file("directory"), 0o700) == 0)
        #expect(symlink(sandbox.storePath, sandbox.file("link.db")) == 0)
        try sandbox.write("{}", to: "unreadable")
        #expect(chmod(sandbox.file("unreadable"), 0) == 0)
        return sandbox
    }

    static func path(of hostile: Hostile, in sandbox: JuiceSandbox) -> String {
        switch hostile {
        case .fifo: sandbox.file("fifo")
        case .directory: sandbox.file("directory")
        case .deviceZero: "/dev/zero"
        case .linkToStore: sandbox.file("link.db")
        case .storeWAL: sandbox.storePath + "-wal"
        case .storeItself: sandbox.storePath
        case .unreadable: sandbox.file("unreadable")
        }
    }

    /// Whether `door` given `hostile` may succeed: reading the store through a link is
    /// reading the store; a file only root may read is read by root; writing to
    /// `/dev/zero` (a character device) is writing nowhere.
    static func mayPass(_ door: Door, _ hostile: Hostile) -> Bool {
        switch (door.name, hostile, door.use) {
        case ("--store", .linkToStore, _), ("--store", .storeItself, _): true
        case (_, .unreadable, _): getuid() == 0
        case (_, .deviceZero, .writes): true
        // A plugin's output that is no file it can write (a FIFO nobody reads, a
        // directory) is said once when it is opened, and orders go on: `config check`
        // refuses only the store's files.
        case (_, .fifo, .writes), (_, .directory, .writes): door.config != nil
        default: false
        }
    }

    static let documented: Set<Int32> = [0, 1, 64, 65, 66, 69, 70, 73, 74, 75, 77, 78]

    /// What the store holds, as `juice` reads it: every event and the stock.
    static func holdings(_ sandbox: JuiceSandbox) async throws -> String {
        let events = try await sandbox.running(["events", "--json"])
        let stock = try await sandbox.running(["stock", "--json"])
        #expect(events.status == 0 && stock.status == 0, "\(events.stderr)\(stock.stderr)")
        return events.stdout + stock.stdout
    }

    @Test(.timeLimit(.minutes(5)), arguments: Hostile.allCases)
    func noDoorHangsTrapsOrWritesOntoTheStore(hostile: Hostile) async throws {
        let sandbox = try await Self.sandbox()
        let before = try await Self.holdings(sandbox)
        let doors = Self.commandLineDoors.values.sorted { $0.name < $1.name } + Self.pluginDoors.values.sorted { $0.name < $1.name }
        for door in doors {
            let target = Self.path(of: hostile, in: sandbox)
            let config = try door.config.map { try sandbox.write($0(target), to: "door.json") }
            let run = try await sandbox.running(door.arguments(target), config: config)
            let said = run.stderr.split(separator: "\n")
            #expect(Self.documented.contains(run.status), "\(door.name) ← \(hostile): exit \(run.status): \(run.stderr)")
            if !Self.mayPass(door, hostile) {
                #expect(run.status != 0, "\(door.name) ← \(hostile) was taken: \(run.stdout)")
                #expect(said.count == 1, "\(door.name) ← \(hostile): \(run.stderr)")
            }
            // Still a SQLite file (opening it may checkpoint its log into it: not a change).
            #expect(sandbox.storeBytes()?.starts(with: Data("SQLite format 3\0".utf8)) == true, "\(door.name) ← \(hostile) wrote onto the store")
            var info = stat()
            #expect(lstat(sandbox.file("link.db"), &info) == 0 && info.st_mode & S_IFMT == S_IFLNK, "\(door.name): the link stays")
            #expect(stat(sandbox.file("fifo"), &info) == 0 && info.st_mode & S_IFMT == S_IFIFO, "\(door.name): the FIFO stays")
        }
        #expect(try await Self.holdings(sandbox) == before, "\(hostile): the store holds what it held")
        let check = try await sandbox.running(["store", "check"])
        #expect(check.status == 0, "\(hostile): \(check.stdout)\(check.stderr)")
    }
}
