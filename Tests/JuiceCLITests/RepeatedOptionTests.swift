import JuiceMakerCore
import JuiceTestSupport
import Testing
@testable import JuiceCLI

/// An option not declared repeatable (`OptionSpec.isRepeatable`) given twice is a
/// usage error naming it, for every command: the parser holds every command to that
/// in one place.
@Suite(.tags(.unit)) struct RepeatedOptionTests {
    private let parser = CommandLineParser.juice

    /// Every command that runs, as the words that name it, with its own options.
    private static func commands(_ spec: CommandSpec, _ words: [String]) -> [([String], [OptionSpec])] {
        let own: [([String], [OptionSpec])] = spec.runnable == nil ? [] : [(words, spec.options)]
        return own + spec.subcommands.flatMap { commands($0, words + [$0.name]) }
    }

    /// The option written twice, each time with a value when it takes one.
    private static func twice(_ option: OptionSpec) -> [String] {
        let once = option.takesValue ? ["--\(option.name)", "1"] : ["--\(option.name)"]
        return once + once
    }

    @Test func everyNonRepeatableOptionGivenTwiceIsAUsageError() {
        let walked = Self.commands(CommandTable.root, [])
        #expect(walked.count > 20)
        var checked = 0
        for (words, options) in walked {
            for option in (options + CommandTable.globalOptions) where !option.isRepeatable {
                let line = words + Self.twice(option)
                checked += 1
                guard let error = parser.refusal(line) else { continue }
                #expect(error.code == .usage && error.code.rawValue == 64, "\(line)")
                #expect(error.message.english == "'\(option.synopsis)' is given more than once; give it once.", "\(line): \(error.message.english)")
            }
        }
        #expect(checked > 100)
    }

    @Test(arguments: [
        ["subscribers", "rewind", "audit", "--to", "1", "--to", "6"],
        ["order", "mango-kiwi", "--count=1", "--count", "2"],
        ["stock", "--lang", "ko", "--lang=en"],
        ["stock", "-qq"],
        ["--json", "stock", "--json"],
    ])
    func spellingsAndPlacesDoNotMatter(words: [String]) {
        #expect(throws: CLIError.self) { try parser.parse(words) }
    }

    @Test func aRepeatableOptionKeepsEveryValue() throws {
        guard case .run(let parsed) = try parser.parse(["events", "--type", "juiceMade", "--type", "orderFailed"]) else {
            Issue.record("expected a command to run")
            return
        }
        #expect(try EventsCommand.Options(parsed).kinds.value == [.juiceMade, .orderFailed])
    }
}
