import Foundation
import Spawning

/// `juice-bench start-order`: the functions a release `juice` runs when it starts, in
/// the order the release link places them (`Sources/juice/start-order.txt`, passed to
/// lld as `--symbol-ordering-file`; Package.swift, `startLinking`).
///
/// Each command line below runs once under valgrind's callgrind, which records every
/// function that ran; the names found in `juice` itself are printed, one per line,
/// `--version`'s first (what every command runs before its own work), then what each
/// later command adds. Placed together, that code fills fewer pages, and a command
/// takes fewer page faults (start-up rule "the release link", the Performance article).
///
/// The first part, `--version`'s, is the same from run to run of the same build; what
/// the orders add varies by a few dozen names (what their threads run depends on
/// timing). The file is a hint: a name the link does not find is skipped, and a function
/// missing from it is placed as before, so an old list costs only some of the gain.
/// Run it again after large changes to what a command runs at start:
/// `swift build -c release --static-swift-stdlib --product juice`, then
/// `swift run -c release juice-bench start-order > Sources/juice/start-order.txt`, then
/// remove `.build/release/juice` and `.build/release/juice-hello` so that they are
/// linked again (SwiftPM does not know the link reads the file).
enum StartOrder {
    static func run() throws -> String {
        let valgrind = try program("valgrind", install: "apt-get install valgrind")
        let objcopy = try program("objcopy", install: "apt-get install binutils")
        let builtJuice = try ProcessInfo.processInfo.environment["JUICE_BENCH_JUICE"] ?? CLIBench.juiceBinary()
        let directory = try BenchDirectory.make("order")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // valgrind 3.19 gives up on the DWARF 5 the Swift compiler writes: a copy
        // without debug sections keeps every symbol callgrind names functions by.
        let juice = directory + "/juice"
        try CLIBench.check(CLIBench.launch(objcopy, ["--strip-debug", builtJuice, juice], [:]), "objcopy --strip-debug")
        // The object's name as valgrind reports it: the path with symbolic links resolved.
        let object = URL(fileURLWithPath: juice).resolvingSymlinksInPath().path

        let store = directory + "/juice.db"
        let loggerConfig = directory + "/logger.json"
        try Data(
            """
            {"subscribers": [{"type": "logger", "format": "text", "path": "juice-maker.log"}, {"type": "cli-notifier"}]}
            """.utf8
        ).write(to: URL(fileURLWithPath: loggerConfig))
        let environment = [
            "HOME": directory, "XDG_STATE_HOME": directory + "/state", "XDG_CONFIG_HOME": directory + "/config",
            "PATH": "/usr/bin:/bin", "LANG": "en_US.UTF-8",
        ]
        try CLIBench.check(CLIBench.launch(juice, ["stock", "set", "banana=100", "--store", store], environment), "juice stock set")
        let commandLines: [[String]] = [
            ["--version"],
            ["--help"],
            ["stock", "--store", store],
            ["order", "banana", "--store", store],
            ["order", "banana", "--config", loggerConfig, "--store", store + "-logger"],
        ]
        var names: [String] = []
        var seen: Set<String> = []
        for (index, arguments) in commandLines.enumerated() {
            let profile = directory + "/callgrind.\(index)"
            let status = try CLIBench.launch(
                valgrind, ["--tool=callgrind", "--demangle=no", "--callgrind-out-file=" + profile, juice] + arguments, environment)
            guard status.0 == 0 else {
                throw BenchError.failed("juice \(arguments.joined(separator: " ")) under valgrind exited with status \(status.0)")
            }
            // Sorted within each command's share: callgrind lists functions in no stable
            // order (its tables are keyed by address, and addresses move from run to
            // run), and a list that changes with every run would be noise in a diff.
            // Within the share the order matters little: the page faults of `--version`
            // barely differ between orders of the same names.
            let profileText = String(decoding: FileManager.default.contents(atPath: profile) ?? Data(), as: UTF8.self)
            names += functions(in: profileText, object: object).filter { seen.insert($0).inserted }.sorted()
        }
        return names.joined(separator: "\n") + "\n"
    }

    /// The functions of `object` a callgrind profile names (each once). Callgrind compresses names: `fn=(12) name` defines id 12,
    /// later `fn=(12)` refers to it, and the ids of functions (`fn`, `cfn`) and of
    /// objects (`ob`, `cob`) may be defined on a call line before they head a block.
    static func functions(in profile: String, object: String) -> [String] {
        var objects: [String: String] = [:]
        var functions: [String: String] = [:]
        var currentObject: String?
        var found: [String] = []
        var seen: Set<String> = []
        for line in profile.split(separator: "\n", omittingEmptySubsequences: true) {
            guard let equals = line.firstIndex(of: "="), line.first?.isLetter == true else { continue }
            let key = line[..<equals]
            let (id, name) = compressed(line[line.index(after: equals)...])
            switch key {
            case "ob", "cob":
                let resolved = resolve(id: id, name: name, in: &objects)
                if key == "ob" { currentObject = resolved }
            case "fn", "cfn":
                let resolved = resolve(id: id, name: name, in: &functions)
                guard key == "fn", currentObject == object, let resolved else { continue }
                // `swift_once'2`: callgrind's name for a function's recursive activation.
                let symbol = resolved.split(separator: "'").first.map(String.init) ?? resolved
                if !symbol.hasPrefix("0x"), seen.insert(symbol).inserted { found.append(symbol) }
            default:
                continue
            }
        }
        return found
    }

    /// The name a compressed entry stands for, remembering a definition (`(12) name`).
    private static func resolve(id: String?, name: String?, in names: inout [String: String]) -> String? {
        guard let name else { return id.flatMap { names[$0] } }
        if let id { names[id] = name }
        return name
    }

    /// `(12) name` → ("12", "name"); `(12)` → ("12", nil); `name` → (nil, "name").
    private static func compressed(_ text: Substring) -> (id: String?, name: String?) {
        guard text.hasPrefix("("), let close = text.firstIndex(of: ")") else { return (nil, text.isEmpty ? nil : String(text)) }
        let id = String(text[text.index(after: text.startIndex)..<close])
        let rest = text[text.index(after: close)...].drop { $0 == " " }
        return (id, rest.isEmpty ? nil : String(rest))
    }

    /// `name`'s path on PATH, or an error saying how to install it.
    private static func program(_ name: String, install: String) throws -> String {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        guard let program = ProgramLaunch.executable(name, in: "/", path: path) else {
            throw BenchError.failed("\(name) is not on the PATH (\(install))")
        }
        return program
    }
}
