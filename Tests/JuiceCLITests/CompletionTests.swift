import Foundation
import JuiceMakerCore
import JuiceTestSupport
import Testing

@testable import JuiceCLI

/// Completion is derived from the command declarations (`Completer`), and the scripts
/// `juice completions bash|zsh|fish` print hand each Tab to it: real shells source them
/// and answer for a command, a juice, a fruit and a path.
@Suite(.tags(.process), .notInUnitRun, .offPool) struct CompletionTests {
    let completer = Completer(root: CommandTable.root, globalOptions: CommandTable.globalOptions)

    private func words(_ line: [String], subscribers: [String] = []) -> [String] {
        guard case .words(let words, _) = completer.reply(line, subscribers: { subscribers }) else { return [] }
        return words
    }

    @Test func everyDeclaredSubcommandAndOptionIsOffered() {
        for declared in CommandDeclarationTests.declared {
            let spec = declared.words.reduce(CommandTable.root) { $0.subcommand(named: $1) ?? $0 }
            if spec.hasSubcommands {
                #expect(words(declared.words + [""]) == spec.subcommands.map(\.name), "\(declared.words)")
            }
            let offered = Set(words(declared.words + ["--"]))
            for option in spec.options + CommandTable.globalOptions {
                #expect(offered.contains("--\(option.name)"), "\(declared.words) lacks --\(option.name)")
            }
        }
    }

    @Test func valuesComeFromTheDomainAndTheConfig() {
        #expect(words(["or"]) == ["order"])
        #expect(words(["order", "ma"]) == ["mango", "mango-kiwi"])
        #expect(Set(words(["order", ""])) == Set(Juice.allCases.map(\.id) + Juice.allCases.map(\.koreanName)))
        #expect(words(["order", "망고"]) == Juice.allCases.map(\.koreanName).filter { $0.hasPrefix("망고") })
        #expect(Set(words(["stock", "add", ""])) == Set(Fruit.allCases.map(\.id) + Fruit.allCases.map(\.koreanName)))
        #expect(words(["stock", "add", "kiwi", ""]) == [], "the amount is not completed")
        #expect(completer.reply(["stock", "set", "ki"], subscribers: { [] }) == .words(["kiwi="], spaceAfter: false))
        #expect(words(["stock", "set", "kiwi=3", "ma"]) == ["mango="])
        #expect(words(["subscribers", "retry", "h"], subscribers: ["hook", "hub", "nats"]) == ["hook", "hub"])
        #expect(words(["--lang", ""]) == ["en", "ko"] || words(["--lang", ""]) == ["ko", "en"])
        #expect(words(["report", "--by", "d"]) == ["day"])
    }

    @Test func pathsAreLeftToTheShell() {
        #expect(completer.reply(["--store", ""], subscribers: { [] }) == .files)
        #expect(completer.reply(["order", "--config", "x"], subscribers: { [] }) == .files)
        #expect(completer.reply(["report", "--svg=ou"], subscribers: { [] }) == .files)
        #expect(completer.reply(["store", "backup", ""], subscribers: { [] }) == .files)
        #expect(completer.reply(["--store", "a.db", "st"], subscribers: { [] }) == .words(["stock", "store"], spaceAfter: true))
    }

    /// What the real shell offers for `line` (completed at its end) with the script sourced.
    private func shell(_ name: String, _ line: String, _ sandbox: JuiceSandbox) throws -> [String]? {
        guard let path = ["/usr/bin/\(name)", "/bin/\(name)"].first(where: FileManager.default.isExecutableFile) else {
            print("skipped: \(name) is not installed (apt-get install \(name))")
            return nil
        }
        let script = try sandbox.write(try sandbox.run(["completions", name]).stdout, to: "completion.\(name)")
        let program: String
        switch name {
        case "bash":
            let words = line.split(separator: " ", omittingEmptySubsequences: false).map { "'\($0)'" }.joined(separator: " ")
            program = """
                source '\(script)'
                COMP_LINE='\(line)'; COMP_POINT=${#COMP_LINE}; COMP_WORDS=(\(words)); COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
                _juice; printf '%s\\n' "${COMPREPLY[@]}"
                """
        case "zsh":
            // compadd and _files are the completion system's; here they print what they are given.
            let words = line.split(separator: " ", omittingEmptySubsequences: false).map { "'\($0)'" }.joined(separator: " ")
            program = """
                compdef() { :; }
                compadd() { while [[ "$1" == -* ]]; do [[ "$1" == -- ]] && { shift; break; }; [[ "$1" == -S ]] && shift; shift; done; printf '%s\\n' "$@"; }
                _files() { print -l -- "${words[CURRENT]}"*(N); }
                source '\(script)'
                words=(\(words)); CURRENT=${#words}
                _juice
                """
        default:
            program = "source '\(script)'; complete -C '\(line)' | cut -f1"
        }
        let result = try sandbox.run(
            ["-c", program], inputFile: "/dev/null",
            environment: ["PATH": (JuiceSandbox.binary as NSString).deletingLastPathComponent + ":/usr/bin:/bin"], executable: path)
        #expect(result.status == 0, "\(name): \(result.stderr)")
        return result.stdout.split(separator: "\n").map(String.init)
    }

    @Test(arguments: ["bash", "zsh", "fish"])
    func aRealShellCompletesThroughTheScript(_ name: String) throws {
        let sandbox = try JuiceSandbox()
        try sandbox.write("", to: "work/stock-notes.txt")
        guard let command = try shell(name, "juice or", sandbox) else { return }
        #expect(command == ["order"])
        #expect(try shell(name, "juice order ma", sandbox) == ["mango", "mango-kiwi"])
        #expect(Set(try shell(name, "juice stock add ", sandbox) ?? []) == Set(Fruit.allCases.map(\.id) + Fruit.allCases.map(\.koreanName)))
        #expect(try shell(name, "juice --store stock-", sandbox) == ["stock-notes.txt"])
    }
}
