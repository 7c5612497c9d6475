import JuiceMakerCore
import JuiceTestSupport
import Testing
@testable import JuiceCLI

/// `juice help …` read by the parser: after any global option, and an unknown topic
/// or command is a usage error rather than the root help.
@Suite(.tags(.unit)) struct HelpRequestTests {
    private let parser = CommandLineParser.juice

    /// Every global option as it may be written before `help`.
    private static var globalWords: [[String]] {
        CommandTable.globalOptions.flatMap { option -> [[String]] in
            let value = option.name == "lang" ? "ko" : "s.db"
            var spellings = option.takesValue ? [["--\(option.name)", value], ["--\(option.name)=\(value)"]] : [["--\(option.name)"]]
            if let letter = option.short { spellings.append(option.takesValue ? ["-\(letter)", value] : ["-\(letter)"]) }
            return spellings
        }
    }

    @Test func helpWorksAfterEveryGlobalOption() throws {
        #expect(Self.globalWords.count >= CommandTable.globalOptions.count)
        for words in Self.globalWords {
            guard case .topic("config", let command) = try parser.parse(words + ["help", "config"]) else {
                Issue.record("\(words) help config: not the config topic")
                continue
            }
            #expect(command?.map(\.name) == ["juice", "config"])
            guard case .topic("exit-codes", nil) = try parser.parse(words + ["help", "exit-codes"]) else {
                Issue.record("\(words) help exit-codes: not the topic")
                continue
            }
            guard case .help(let path) = try parser.parse(words + ["help", "stock", "add"]) else {
                Issue.record("\(words) help stock add: not help")
                continue
            }
            #expect(path.map(\.name) == ["juice", "stock", "add"])
            guard case .manual = try parser.parse(words + ["help", "--man"]) else {
                Issue.record("\(words) help --man: not the manual")
                continue
            }
        }
        // All of them at once.
        guard case .topic("exit-codes", nil) = try parser.parse(["--store", "s.db", "--lang", "ko", "--json", "-q", "help", "exit-codes"]) else {
            Issue.record("not the topic")
            return
        }
    }

    @Test func aWordThatIsTheValueOfAnOptionIsNotHelp() throws {
        // `help` as the store's path: `juice --store help stock` is `juice stock`.
        guard case .run(let invocation) = try parser.parse(["--store", "help", "stock"]) else {
            Issue.record("expected a command to run")
            return
        }
        #expect(invocation.command.name == "stock")
    }

    @Test(arguments: [
        (
            ["help", "nosuch"],
            "unknown help topic or command 'nosuch'. The topics are config, delivery, environment, events, examples, "
                + "exit-codes, files, fleet, metrics, report, signals, store; juice help lists the commands."
        ),
        (["help", "stor"], "unknown help topic or command 'stor'. Did you mean 'store'?"),
        (["help", "exit-code"], "unknown help topic or command 'exit-code'. Did you mean 'exit-codes'?"),
        (["--lang", "ko", "help", "nosuch"], "unknown help topic or command 'nosuch'."),
        (["help", "stock", "nosuch"], "unknown command 'nosuch' for 'juice stock'; its commands are "),
        (["help", "stock", "ad"], "unknown command 'ad' for 'juice stock'. Did you mean 'add'?"),
        (["help", "order", "kiwi"], "'juice order' has no subcommand 'kiwi'; write juice help order alone."),
        (["help", "--man", "order"], "unexpected argument 'order'."),
    ])
    func anUnknownTopicOrCommandIsAUsageError(words: [String], message: String) {
        parser.expectUsageError(words, startingWith: message)
    }
}
