import JuiceMakerCore
import JuiceTestSupport
import Testing
@testable import JuiceCLI

/// The argument parser against the real command table, without a process.
@Suite(.tags(.unit)) struct ParserTests {
    private let parser = CommandLineParser.juice

    private func invocation(_ words: [String]) throws -> Invocation {
        guard case .run(let invocation) = try parser.parse(words) else {
            Issue.record("expected a command to run")
            throw CLIError(.usage, LocalizedText("", ko: ""))
        }
        return invocation
    }

    @Test func optionsAnywhereAndBothSpellings() throws {
        let parsed = try invocation(["--json", "order", "--count=3", "mango-kiwi", "--lang", "ko"])
        #expect(parsed.command.runnable == OrderCommand.self)
        #expect(parsed.arguments == ["mango-kiwi"])
        #expect(try OrderCommand.Options(parsed).count.value == 3)
        #expect(try GlobalOptions(parsed).lang.value == .korean)
        #expect(try GlobalOptions(parsed).json.value)
    }

    @Test func negativeNumbersAreValues() throws {
        let parsed = try invocation(["stock", "add", "kiwi", "-3"])
        #expect(parsed.command.runnable == StockAddCommand.self)
        #expect(parsed.arguments == ["kiwi", "-3"])
    }

    @Test func doubleDashEndsOptions() throws {
        let parsed = try invocation(["stock", "set", "--", "kiwi=1"])
        #expect(parsed.arguments == ["kiwi=1"])
    }

    @Test func repeatableOptionsKeepEveryValue() throws {
        let parsed = try invocation(["events", "--type", "juiceMade", "--type", "orderFailed"])
        #expect(EventsCommand.Options(parsed).kinds.spec.isRepeatable)
        #expect(parsed.given(EventsCommand.Options(parsed).kinds.spec) == ["juiceMade", "orderFailed"])
        #expect(try EventsCommand.Options(parsed).kinds.value == [.juiceMade, .orderFailed])
    }

    @Test func aSingleValueOptionGivenTwiceIsAUsageError() {
        // Which one was meant cannot be known: refused, not the last one kept.
        #expect(throws: CLIError.self) { try parser.parse(["stock", "--lang", "ko", "--lang", "en"]) }
        #expect(throws: CLIError.self) { try parser.parse(["order", "x", "--count", "1", "--count=2"]) }
    }

    @Test func shortFlagsBundle() throws {
        // POSIX utility syntax guideline 5: -qh is -q -h.
        guard case .help(let path) = try parser.parse(["stock", "-qh"]) else {
            Issue.record("expected help")
            return
        }
        #expect(path.map(\.name) == ["juice", "stock"])
        guard case .help = try parser.parse(["-hq"]) else {
            Issue.record("expected help")
            return
        }
        #expect(try GlobalOptions(invocation(["stock", "-q"])).quiet.value)
        #expect(throws: CLIError.self) { try parser.parse(["stock", "-qq"]) }
        #expect(throws: CLIError.self) { try parser.parse(["stock", "-qx"]) }
    }

    @Test(arguments: [
        (["order", "x", "--count", "--json"], "missing value for '--count <n>'"),
        (["order", "x", "--count"], "missing value for '--count <n>'"),
        (["stock", "--config="], "empty path for '--config <path>'"),
        (["stock", "--config", ""], "empty path for '--config <path>'"),
        (["stock", "--lang="], "empty value for '--lang <ko|en>'"),
    ])
    func missingAndEmptyValuesSaySo(words: [String], message: String) {
        parser.expectUsageError(words, startingWith: message)
    }

    @Test func mistakesAreUsageErrors() {
        for words in [["order"], ["order", "a", "b"], ["nope"], ["stock", "--count", "1"], ["order", "x", "--count"], ["--json=yes", "stock"]] {
            do {
                _ = try parser.parse(words)
                Issue.record("\(words) parsed")
            } catch {
                #expect(error.code == .usage, "\(words)")
                #expect(error.usage != nil, "\(words)")
            }
        }
    }

    @Test func helpFindsTheDeepestCommand() throws {
        guard case .help(let path) = try parser.parse(["stock", "set", "--help"]) else {
            Issue.record("expected help")
            return
        }
        #expect(path.map(\.name) == ["juice", "stock", "set"])
    }

    @Test func helpHasOneLinePerOption() {
        let help = HelpFormatter(globalOptions: CommandTable.globalOptions, language: .english).help([
            CommandTable.root, CommandTable.root.subcommands[1],
        ])
        for option in CommandTable.globalOptions + [CommandTable.helpOption] {
            #expect(help.split(separator: "\n").filter { $0.contains(option.synopsis) }.count == 1, "\(option.name)")
        }
    }
}
