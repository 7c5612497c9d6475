import JuiceMakerCore
import JuiceTestSupport
import Testing
@testable import JuiceCLI

/// Each option is declared once, on an `OptionList`, and read typed from that
/// declaration. Walking every command's declarations: no two options a command takes
/// share a name or a letter, and every name can be typed. A bad value read typed says
/// the same line, with the same exit code, as before options were typed (the lines
/// below are what `juice` printed then).
@Suite(.tags(.unit)) struct OptionDeclarationTests {
    /// Every command's words and the options it takes (its own, then the global ones).
    static let commands: [(words: [String], options: [OptionSpec])] = CommandDeclarationTests.declared.map {
        ($0.words, $0.declaration.declaredOptions + CommandTable.globalOptions + [CommandTable.helpOption, CommandTable.versionOption])
    }

    /// What is wrong with a list of options a command takes: a long name or a letter
    /// given twice, or a name that cannot be typed as one option word.
    static func mistakes(in options: [OptionSpec]) -> [String] {
        var mistakes: [String] = []
        var names: Set<String> = []
        var letters: Set<Character> = []
        for option in options {
            if !names.insert(option.name).inserted { mistakes.append("--\(option.name) twice") }
            if let letter = option.short, !letters.insert(letter).inserted { mistakes.append("-\(letter) twice") }
            let typable = option.name.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" }
            if option.name.isEmpty || option.name.hasPrefix("-") || !typable { mistakes.append("'\(option.name)' is not a name") }
            // `-3` is a negative number, never an option (`CommandLineParser.isOption`).
            if let letter = option.short, letter.isNumber || letter == "-" { mistakes.append("-\(letter) is not a letter") }
        }
        return mistakes
    }

    @Test func everyCommandsOptionsAreDistinctAndTypable() {
        #expect(Self.commands.count == CommandDeclarationTests.declared.count)
        for command in Self.commands {
            #expect(Self.mistakes(in: command.options) == [], "\(command.words)")
        }
    }

    /// Options declared twice, or under a name that cannot be typed.
    struct Misdeclared: CommandOptions {
        let first: Option<Bool>
        let again: Option<String?>
        let spaced: Option<Bool>
        let digit: Option<Bool>
        init(_ options: inout OptionList) {
            first = options.flag("follow", help: LocalizedText("", ko: ""))
            again = options.text("follow", value: "x", help: LocalizedText("", ko: ""))
            spaced = options.flag("dead letters", help: LocalizedText("", ko: ""))
            digit = options.flag("two", short: "2", help: LocalizedText("", ko: ""))
        }
    }

    @Test func aMisdeclaredOptionIsCaught() {
        #expect(Self.mistakes(in: Misdeclared.declared) == ["--follow twice", "'dead letters' is not a name", "-2 is not a letter"])
        // Beside the global options: `--json` and `-q` are taken.
        struct Clashing: CommandOptions {
            let json: Option<Bool>
            init(_ options: inout OptionList) { json = options.flag("json", short: "q", help: LocalizedText("", ko: "")) }
        }
        #expect(Self.mistakes(in: Clashing.declared + CommandTable.globalOptions) == ["--json twice", "-q twice"])
    }

    /// What an option's declaration gives: its place in the list, its spec, and its
    /// value bound to the command line (the declared default when not given).
    @Test func anOptionIsItsDeclaration() throws {
        let declared = OrderCommand.Options.declared
        #expect(declared.map(\.synopsis) == ["--count <n>"])
        #expect(OrderCommand.declaredOptions.map(\.name) == declared.map(\.name))
        #expect(CommandTable.root.subcommand(named: "order")?.options.map(\.name) == ["count"])
        let unbound = OrderCommand.Options.unbound
        #expect(try unbound.count.value == nil && unbound.count.text == nil)
        let events = EventsCommand.Options.unbound
        #expect(try events.since.value == nil && events.kinds.value == nil && events.limit.value == nil)
        #expect(try !DeliverCommand.Options.unbound.follow.value)
    }

    /// Positional arguments are declared on the same list: the parser, the usage line and
    /// `--help` read them from there, and each is read typed from its declaration.
    @Test func anArgumentIsItsDeclaration() throws {
        #expect(OrderCommand.declaredArguments.map(\.synopsis) == ["<juice>"])
        #expect(StockAddCommand.declaredArguments.map(\.synopsis) == ["<fruit>", "<n>"])
        #expect(StockSetCommand.declaredArguments.map(\.synopsis) == ["<fruit=n> ..."])
        #expect(CommandTable.root.subcommand(named: "order")?.arguments.map(\.name) == ["juice"])
        // Every command: names distinct, a repeating argument only last.
        for command in CommandDeclarationTests.declared {
            let arguments = command.declaration.declaredArguments
            #expect(Set(arguments.map(\.name)).count == arguments.count, "\(command.words)")
            #expect(arguments.dropLast().allSatisfy { !$0.isRepeating }, "\(command.words)")
        }
        guard case .run(let invocation) = try CommandLineParser.juice.parse(["stock", "set", "kiwi=1", "mango=2"]) else {
            Issue.record("stock set did not parse to a command")
            return
        }
        #expect(try StockSetCommand.Options(invocation).assignments.value == ["kiwi=1", "mango=2"])
        guard case .run(let order) = try CommandLineParser.juice.parse(["order", "mango-kiwi"]) else {
            Issue.record("order did not parse to a command")
            return
        }
        #expect(try OrderCommand.Options(order).juice.value == .mangoKiwi)
        // Unbound (declarations only), an argument reads as missing: a usage error.
        #expect(throws: CLIError.self) { try OrderCommand.Options.unbound.juice.value }
    }

    /// A command line whose option `juice` refuses: its exit status and its line in
    /// both languages, as `juice` printed them before options were typed.
    struct Refusal: Sendable, CustomTestStringConvertible {
        let line: String
        let code: Int32
        let english: String
        let korean: String
        init(_ line: String, _ code: Int32, _ english: String, ko korean: String) {
            self.line = line
            self.code = code
            self.english = english
            self.korean = korean
        }
        var testDescription: String { line }
    }

    @Test(arguments: [
        Refusal(
            "order banana --count abc", 64, "'abc' is not a whole number for '--count'; write digits, e.g. 2.",
            ko: "'--count'의 값 'abc'은(는) 정수가 아닙니다. 예: 2."),
        Refusal(
            "order nojuice --count 0", 65, "unknown juice 'nojuice'. See 'juice menu' for the names.",
            ko: "'nojuice'이라는 쥬스는 없습니다. 이름은 'juice menu'에서 볼 수 있습니다."),
        Refusal(
            "order nojuice --count x", 64, "'x' is not a whole number for '--count'; write digits, e.g. 2.",
            ko: "'--count'의 값 'x'은(는) 정수가 아닙니다. 예: 2."),
        Refusal(
            "order banana --count 0", 65, "'--count' must be 1 or more, found 0.",
            ko: "'--count'는 1 이상이어야 합니다. 받은 값: 0."),
        Refusal(
            "order banana --count -99999999999999999999", 65, "'--count' must be 1 or more, found -99999999999999999999.",
            ko: "'--count'는 1 이상이어야 합니다. 받은 값: -99999999999999999999."),
        Refusal(
            "order banana --count 99999999999999999999", 65,
            "cannot order 99999999999999999999 banana juices: at most 500,000 can be made at once (each takes banana 2; the stock holds at most 1,000,000); order 500,000 or fewer.",
            ko: "바나나쥬스 99999999999999999999잔은 주문할 수 없습니다. 한 번에 최대 500,000잔까지 만들 수 있습니다 (한 잔에 바나나 2개, 재고는 최대 1,000,000개). 500,000잔 이하로 주문하세요."),
        Refusal(
            "order banana --count 500001", 65,
            "cannot order 500001 banana juices: at most 500,000 can be made at once (each takes banana 2; the stock holds at most 1,000,000); order 500,000 or fewer.",
            ko: "바나나쥬스 500001잔은 주문할 수 없습니다. 한 번에 최대 500,000잔까지 만들 수 있습니다 (한 잔에 바나나 2개, 재고는 최대 1,000,000개). 500,000잔 이하로 주문하세요."),
        Refusal(
            "events --limit 0", 65, "'--limit' must be 1 or more, found 0.",
            ko: "'--limit'는 1 이상이어야 합니다. 받은 값: 0."),
        Refusal(
            "events --limit x", 64, "'x' is not a whole number for '--limit'; write digits, e.g. 2.",
            ko: "'--limit'의 값 'x'은(는) 정수가 아닙니다. 예: 2."),
        Refusal(
            "events --limit 99999999999999999999", 65,
            "'99999999999999999999' for '--limit' is above 9,223,372,036,854,775,807, the most it can be; use a smaller number.",
            ko: "'--limit'의 값 '99999999999999999999'은(는) 최대 9,223,372,036,854,775,807보다 큽니다. 더 작은 수를 쓰세요."),
        Refusal(
            "events --since -1", 65, "'--since' must be 0 or more, found -1.",
            ko: "'--since'는 0 이상이어야 합니다. 받은 값: -1."),
        Refusal(
            "events --since -99999999999999999999", 65, "'-99999999999999999999' for '--since' is below 0, the least it can be; use 0 or more.",
            ko: "'--since'의 값 '-99999999999999999999'은(는) 최소 0보다 작습니다. 0 이상을 쓰세요."),
        Refusal(
            "events --type bogus", 64, "unknown event type 'bogus'; use one of stockChanged, juiceMade, orderFailed.",
            ko: "알 수 없는 이벤트 종류 'bogus'입니다. stockChanged, juiceMade, orderFailed 중 하나를 쓰세요."),
        Refusal(
            "events --type juicemade,bogus --limit x", 64, "'x' is not a whole number for '--limit'; write digits, e.g. 2.",
            ko: "'--limit'의 값 'x'은(는) 정수가 아닙니다. 예: 2."),
        Refusal(
            "watch --since x", 64, "'x' is not a whole number for '--since'; write digits, e.g. 2.",
            ko: "'--since'의 값 'x'은(는) 정수가 아닙니다. 예: 2."),
        Refusal(
            "report --by month", 65, "'--by month' is not a period; use hour, day or week.",
            ko: "'--by month'은(는) 단위가 아닙니다. hour, day, week 중 하나를 쓰세요."),
        Refusal(
            "report --since 3x --by month", 65, "'--since 3x' is not a duration or a date; write e.g. 24h, 7d, 2w or 2026-11-01.",
            ko: "'--since 3x'은(는) 기간이나 날짜가 아닙니다. 예: 24h, 7d, 2w, 2026-11-01."),
        Refusal(
            "report picklist --target 0", 65, "'--target' must be from 1 to 1,000,000, found 0.",
            ko: "'--target'은 1부터 1,000,000까지여야 합니다. 받은 값: 0."),
        Refusal(
            "report picklist --target x", 64, "'x' is not a whole number for '--target'; write digits, e.g. 2.",
            ko: "'--target'의 값 'x'은(는) 정수가 아닙니다. 예: 2."),
        Refusal(
            "report picklist --cover 2d --target 5", 64, "'--cover' and '--target' ask for two different lists; give one of them.",
            ko: "'--cover'와 '--target'은 서로 다른 목록입니다. 하나만 쓰세요."),
        Refusal(
            "report picklist --cover 3x", 65, "'--cover 3x' is not a duration; write a whole number and h, d or w, e.g. 12h, 2d, 1w.",
            ko: "'--cover 3x'은(는) 기간이 아닙니다. 정수와 h, d, w를 쓰세요. 예: 12h, 2d, 1w."),
        Refusal(
            "store compact --retention 5x", 65, "--retention 5x is not a retention: give days or weeks from 1d to 36500d, e.g. --retention 400d",
            ko: "--retention 5x은(는) 보관 기간이 아닙니다. 1d부터 36500d까지 일 또는 주로 주세요. 예: --retention 400d"),
        Refusal(
            "subscribers rewind a", 64, "missing expected argument '--to <time|sequence>'.",
            ko: "인자 '--to <time|sequence>'가 없습니다."),
        Refusal(
            "subscribers rewind a --to yesterday", 65,
            "--to yesterday is neither a sequence (1 or more) nor a time: give e.g. --to 120, --to 2026-11-21T09:00:00Z or --to 2026-11-21",
            ko: "--to yesterday은(는) 순번(1 이상)도 시각도 아닙니다. 예: --to 120, --to 2026-11-21T09:00:00Z, --to 2026-11-21"),
        Refusal(
            "subscribers rewind a --to 0", 65,
            "--to 0 is neither a sequence (1 or more) nor a time: give e.g. --to 120, --to 2026-11-21T09:00:00Z or --to 2026-11-21",
            ko: "--to 0은(는) 순번(1 이상)도 시각도 아닙니다. 예: --to 120, --to 2026-11-21T09:00:00Z, --to 2026-11-21"),
        Refusal(
            "store recover", 64, "missing expected argument '--to <file>'.",
            ko: "인자 '--to <file>'가 없습니다."),
        Refusal(
            "fleet watch --machine a.b", 65, "--machine \"a.b\": expected letters, digits, - and _ only.",
            ko: "--machine \"a.b\": 글자, 숫자, -, _만 쓸 수 있습니다."),
        Refusal(
            "fleet watch --since 3x", 65, "--since \"3x\": expected a duration (30s, 10m, 2h, 1d) or all.",
            ko: "--since \"3x\": 기간(30s, 10m, 2h, 1d)이나 all이어야 합니다."),
        Refusal(
            "order nope", 65, "unknown juice 'nope'. See 'juice menu' for the names.",
            ko: "'nope'이라는 쥬스는 없습니다. 이름은 'juice menu'에서 볼 수 있습니다."),
        Refusal(
            "stock add kiwi x", 64, "'x' is not a whole number for '<n>'; write digits, e.g. 2.",
            ko: "'<n>'의 값 'x'은(는) 정수가 아닙니다. 예: 2."),
        Refusal(
            "stock add nope 3", 65, "unknown fruit 'nope'. See 'juice stock' for the names.",
            ko: "'nope'이라는 과일은 없습니다. 이름은 'juice stock'에서 볼 수 있습니다."),
        // The amount is read before the fruit.
        Refusal(
            "stock add nope x", 64, "'x' is not a whole number for '<n>'; write digits, e.g. 2.",
            ko: "'<n>'의 값 'x'은(는) 정수가 아닙니다. 예: 2."),
        Refusal(
            "stock set kiwi=x", 64, "'x' is not a whole number for 'kiwi='; write digits, e.g. 2.",
            ko: "'kiwi='의 값 'x'은(는) 정수가 아닙니다. 예: 2."),
        Refusal(
            "stock --lang fr", 64, "'fr' is not a language for '--lang'; use ko or en.",
            ko: "'fr'은(는) '--lang'의 언어가 아닙니다. ko 또는 en을 쓰세요."),
    ])
    func aRefusedValueSaysWhatItSaidBefore(_ refusal: Refusal) throws {
        let (line, code) = (refusal.line, refusal.code)
        let words = line.split(separator: " ").map(String.init)
        do {
            guard case .run(let invocation) = try CommandLineParser.juice.parse(words) else {
                Issue.record("\(line) did not parse to a command")
                return
            }
            let command = try #require(invocation.command.runnable)
            _ = try command.init(invocation)
            Issue.record("\(line) was accepted")
        } catch let error as CLIError {
            #expect(error.code.rawValue == code, "\(line)")
            #expect(error.message.english == refusal.english, "\(line)")
            #expect(error.message.korean == refusal.korean, "\(line)")
            // A usage error names the command whose usage line follows it; a bad value has none.
            var path = [CommandTable.root]
            for word in words {
                guard let next = path[path.count - 1].subcommand(named: word) else { break }
                path.append(next)
            }
            #expect(error.usage?.map(\.name) == (code == 64 ? path.map(\.name) : nil), "\(line)")
        }
    }
}
