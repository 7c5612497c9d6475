import JuiceMakerCore
import JuiceMakerPluginKit
import JuicePrimitives

/// Error lines: each says what was wrong and how to fix it.
extension Catalog {
    enum Errors {
        static let prefix = T("Error:", ko: "오류:")

        // Command line (exit 64)
        static func unknownOption(_ word: String) -> T {
            let word = echo(word)
            return T("unknown option '\(word)'.", ko: "알 수 없는 옵션 '\(word)'입니다.")
        }
        static func flagTakesNoValue(_ flag: String) -> T {
            T("'\(flag)' takes no value; write it alone.", ko: "'\(flag)'에는 값이 없습니다. 옵션만 쓰세요.")
        }
        static func missingValue(_ synopsis: String) -> T {
            T("missing value for '\(synopsis)'.", ko: "'\(synopsis)'의 값이 없습니다.")
        }
        static func notUTF8(argument position: Int) -> T {
            T(
                "argument \(position) is not valid UTF-8; juice reads names and paths as UTF-8 text (rename the file, or reach it through a link with a UTF-8 name).",
                ko: "\(position)번째 인자가 올바른 UTF-8이 아닙니다. juice는 이름과 경로를 UTF-8 글자로 읽습니다(파일 이름을 바꾸거나 UTF-8 이름의 링크로 가리키세요).")
        }
        static func emptyValue(_ synopsis: String, isPath: Bool) -> T {
            isPath
                ? T(
                    "empty path for '\(synopsis)'; give a file path (./name for the current directory).",
                    ko: "'\(synopsis)'의 경로가 비어 있습니다. 파일 경로를 쓰세요(현재 디렉터리는 ./이름).")
                : T("empty value for '\(synopsis)'; give a value.", ko: "'\(synopsis)'의 값이 비어 있습니다. 값을 쓰세요.")
        }
        static func unknownCommand(_ word: String, in command: String, suggestion: String? = nil) -> T {
            let word = echo(word)
            guard let suggestion else {
                return T("unknown command '\(word)' for '\(command)'.", ko: "'\(command)'에 '\(word)'\(called(word, otherwise: "라는")) 명령은 없습니다.")
            }
            return T(
                "unknown command '\(word)' for '\(command)'. Did you mean '\(suggestion)'?",
                ko: "'\(command)'에 '\(word)'\(called(word, otherwise: "라는")) 명령은 없습니다. '\(suggestion)'을(를) 말씀하신 건가요?")
        }
        static func repeatedOption(_ synopsis: String) -> T {
            T("'\(synopsis)' is given more than once; give it once.", ko: "'\(synopsis)'이(가) 두 번 이상 있습니다. 한 번만 쓰세요.")
        }
        /// `juice help <word>`, where the word is neither a topic nor a command.
        static func unknownHelpTopic(_ word: String, suggestion: String?, topics: [String]) -> T {
            let word = echo(word)
            guard let suggestion else {
                let list = topics.joined(separator: ", ")
                return T(
                    "unknown help topic or command '\(word)'. The topics are \(list); juice help lists the commands.",
                    ko: "'\(word)'\(called(word, otherwise: "라는")) 도움말 주제나 명령은 없습니다. 주제는 \(list)이고, 명령은 juice help에 있습니다.")
            }
            return T(
                "unknown help topic or command '\(word)'. Did you mean '\(suggestion)'?",
                ko: "'\(word)'\(called(word, otherwise: "라는")) 도움말 주제나 명령은 없습니다. '\(suggestion)'을(를) 말씀하신 건가요?")
        }
        /// `juice help stock <word>`, where the word is not a subcommand.
        static func unknownHelpCommand(_ word: String, in command: String, suggestion: String?, commands: [String]) -> T {
            if let suggestion { return unknownCommand(word, in: command, suggestion: suggestion) }
            let word = echo(word)
            guard !commands.isEmpty else {
                let help = "juice help " + command.split(separator: " ").dropFirst().joined(separator: " ")
                return T(
                    "'\(command)' has no subcommand '\(word)'; write \(help) alone.",
                    ko: "'\(command)'에는 '\(word)' 하위 명령이 없습니다. \(help)만 쓰세요.")
            }
            let list = commands.joined(separator: ", ")
            return T(
                "unknown command '\(word)' for '\(command)'; its commands are \(list).",
                ko: "'\(command)'에 '\(word)'\(called(word, otherwise: "라는")) 명령은 없습니다. 하위 명령은 \(list)입니다.")
        }
        static func missingCommand(_ command: String) -> T {
            T("'\(command)' needs a subcommand.", ko: "'\(command)'에는 하위 명령이 필요합니다.")
        }
        static func missingArgument(_ synopsis: String) -> T {
            T("missing expected argument '\(synopsis)'.", ko: "인자 '\(synopsis)'가 없습니다.")
        }
        static func unexpectedArgument(_ word: String) -> T {
            let word = echo(word)
            return T("unexpected argument '\(word)'.", ko: "예상하지 못한 인자 '\(word)'입니다.")
        }
        static func notAWholeNumber(_ what: String, _ value: String) -> T {
            let (what, value) = (echo(what), echo(value))
            return T("'\(value)' is not a whole number for '\(what)'; write digits, e.g. 2.", ko: "'\(what)'의 값 '\(value)'은(는) 정수가 아닙니다. 예: 2.")
        }
        static func invalidLanguage(_ value: String) -> T {
            let value = echo(value)
            return T("'\(value)' is not a language for '--lang'; use ko or en.", ko: "'\(value)'은(는) '--lang'의 언어가 아닙니다. ko 또는 en을 쓰세요.")
        }
        static func malformedAssignment(_ word: String) -> T {
            let word = echo(word)
            return T("'\(word)' is not fruit=n; write e.g. strawberry=20.", ko: "'\(word)'은(는) 과일=개수 형식이 아닙니다. 예: strawberry=20.")
        }
        static func unknownEventType(_ name: String, suggestion: EventKind? = nil) -> T {
            let name = echo(name)
            if let suggestion {
                return T(
                    "unknown event type '\(name)'. Did you mean '\(suggestion.rawValue)'?",
                    ko: "알 수 없는 이벤트 종류 '\(name)'입니다. '\(suggestion.rawValue)'을(를) 말씀하신 건가요?")
            }
            let known = EventKind.allCases.map(\.rawValue).joined(separator: ", ")
            return T("unknown event type '\(name)'; use one of \(known).", ko: "알 수 없는 이벤트 종류 '\(name)'입니다. \(known) 중 하나를 쓰세요.")
        }
        static func jsonNotForScreens(_ command: String) -> T {
            T(
                "'\(command)' is a screen for a person and prints no JSON; leave out '--json' (for scripts: juice order, juice stock set).",
                ko: "'\(command)'은(는) 사람이 쓰는 화면이라 JSON을 출력하지 않습니다. '--json'을 빼세요 (스크립트에는 juice order, juice stock set).")
        }

        // Values (exit 65)
        static func countTooSmall(_ count: String) -> T {
            let count = echo(count)
            return T("'--count' must be 1 or more, found \(count).", ko: "'--count'는 1 이상이어야 합니다. 받은 값: \(count).")
        }
        /// `--count` above what the stock maximum makes of `juice` (62,500 strawberry juices).
        static func countAboveMaximum(_ juice: Juice, _ count: String, maximum: Int) -> T {
            let count = echo(count)
            let limit = juice.recipe.nonZero.min { FruitAmounts.maximumQuantity / $0.amount < FruitAmounts.maximumQuantity / $1.amount }
            let fruitEnglish =
                limit.map {
                    " (each takes \($0.fruit.englishName) \(Catalog.number($0.amount)); the stock holds at most \(Catalog.number(FruitAmounts.maximumQuantity)))"
                } ?? ""
            let fruitKorean =
                limit.map { " (한 잔에 \($0.fruit.koreanName) \(Catalog.number($0.amount))개, 재고는 최대 \(Catalog.number(FruitAmounts.maximumQuantity))개)" }
                ?? ""
            return T(
                "cannot order \(EnglishCount.of(count, juice.englishName)): at most \(Catalog.number(maximum)) can be made at once\(fruitEnglish); order \(Catalog.number(maximum)) or fewer.",
                ko:
                    "\(juice.koreanName) \(count)잔은 주문할 수 없습니다. 한 번에 최대 \(Catalog.number(maximum))잔까지 만들 수 있습니다\(fruitKorean). \(Catalog.number(maximum))잔 이하로 주문하세요."
            )
        }
        /// A number written as digits but beyond what `what` can be (also beyond 64 bits).
        static func numberAboveMaximum(_ what: String, _ value: String, maximum: Int) -> T {
            let (what, value) = (echo(what), echo(value))
            return T(
                "'\(value)' for '\(what)' is above \(Catalog.number(maximum)), the most it can be; use a smaller number.",
                ko: "'\(what)'의 값 '\(value)'은(는) 최대 \(Catalog.number(maximum))보다 큽니다. 더 작은 수를 쓰세요.")
        }
        /// A negative number beyond 64 bits.
        static func numberBelowMinimum(_ what: String, _ value: String, minimum: Int) -> T {
            let (what, value) = (echo(what), echo(value))
            return T(
                "'\(value)' for '\(what)' is below \(Catalog.number(minimum)), the least it can be; use \(Catalog.number(minimum)) or more.",
                ko: "'\(what)'의 값 '\(value)'은(는) 최소 \(Catalog.number(minimum))보다 작습니다. \(Catalog.number(minimum)) 이상을 쓰세요.")
        }
        static func sinceNegative(_ value: Int) -> T {
            T("'--since' must be 0 or more, found \(value).", ko: "'--since'는 0 이상이어야 합니다. 받은 값: \(value).")
        }
        static func limitTooSmall(_ value: Int) -> T {
            T("'--limit' must be 1 or more, found \(value).", ko: "'--limit'는 1 이상이어야 합니다. 받은 값: \(value).")
        }
        static func unknownName(_ error: UnknownNameError) -> T {
            let list = error.kind == .fruit ? "juice stock" : "juice menu"
            let input = echo(error.input)
            let hintEnglish = error.suggestion.map { " Did you mean '\($0)'?" } ?? " See '\(list)' for the names."
            let hintKorean = error.suggestion.map { " '\($0)'\(object($0)) 말씀하신 건가요?" } ?? " 이름은 '\(list)'에서 볼 수 있습니다."
            return error.kind == .fruit
                ? T("unknown fruit '\(input)'.\(hintEnglish)", ko: "'\(input)'\(called(input)) 과일은 없습니다.\(hintKorean)")
                : T("unknown juice '\(input)'.\(hintEnglish)", ko: "'\(input)'\(called(input)) 쥬스는 없습니다.\(hintKorean)")
        }
        static func fruitSetTwice(_ fruit: Fruit) -> T {
            T("\(fruit.id) is set twice; give each fruit once.", ko: "\(fruit.koreanName)을(를) 두 번 정했습니다. 과일마다 한 번만 쓰세요.")
        }
        static func invalidAmount(_ fruit: Fruit, _ amount: Int) -> T {
            T(
                "\(amount) is not a valid amount of \(fruit.id); amounts are whole numbers of 1 or more (0 or more for 'stock set').",
                ko: "\(fruit.koreanName) \(amount)개는 올바른 수량이 아닙니다. 1 이상('stock set'은 0 이상)의 정수를 쓰세요.")
        }
        static func aboveMaximum(_ fruit: Fruit, requested: Int, maximum: Int) -> T {
            T(
                "\(fruit.id) would be \(Catalog.number(requested)), above the maximum of \(Catalog.number(maximum)); use a smaller amount.",
                ko: "\(fruit.koreanName)이(가) \(Catalog.number(requested))개가 되어 최대 \(Catalog.number(maximum))개를 넘습니다. 더 작은 수를 쓰세요.")
        }
        static func amountAboveMaximum(_ fruit: Fruit, amount: Int, maximum: Int) -> T {
            T(
                "cannot add \(Catalog.number(amount)) \(fruit.id): that alone is above the maximum of \(Catalog.number(maximum)); use a smaller amount.",
                ko: "\(fruit.koreanName) \(Catalog.number(amount))개는 더할 수 없습니다. 기계가 담는 최대 \(Catalog.number(maximum))개보다 많습니다. 더 작은 수를 쓰세요.")
        }
        static func notEnoughToRemove(_ fruit: Fruit, available: Int, requested: Int) -> T {
            T(
                "cannot remove \(requested) \(fruit.id): only \(available) in stock; remove at most \(available).",
                ko: "\(fruit.koreanName) \(requested)개를 뺄 수 없습니다. 재고가 \(available)개뿐이니 \(available)개 이하로 빼세요.")
        }
        static func invalidCount(_ count: Int) -> T {
            T(
                "cannot order \(EnglishCount.of(count, "juice")); order at least 1, and no more than a stock of 1,000,000 of each fruit could make.",
                ko: "\(count)잔은 주문할 수 없습니다. 1잔 이상, 과일마다 최대 재고 1,000,000개로 만들 수 있는 만큼까지 주문하세요.")
        }
        static func draftConflict(_ fruits: [Fruit]) -> T {
            let ids = fruits.map(\.id).joined(separator: ", ")
            return T("the stock of \(ids) changed meanwhile; run the command again.", ko: "그사이 \(ids) 재고가 바뀌었습니다. 명령을 다시 실행하세요.")
        }

        // Store (exit 74) and config (exit 78)
        static func store(_ error: StoreError) -> T {
            StoreErrors.line(error)
        }
        static func config(_ error: ConfigurationError) -> T {
            let what = ConfigErrors.located(error)
            return T(
                "config \(what.english). Fix it, then run 'juice config check'.",
                ko: "설정 오류: \(what.korean). 고친 뒤 'juice config check'로 확인하세요.")
        }

        // Reported while running, not fatal
        static func subscriberReport(_ name: String, _ detail: PluginMessage) -> T {
            let name = echo(name)
            return T("subscriber '\(name)': \(escape(detail.english))", ko: "구독자 '\(name)': \(escape(detail.korean))")
        }
        /// What a subscriber's handler threw: a store failure in the catalog's words,
        /// anything else in its own.
        static func subscriberFailure(_ error: any Error) -> PluginMessage {
            if let store = error as? StoreError { return storeForPlugin(store) }
            return PluginMessage(untranslated: "\(error)")
        }
        /// A store failure as a plugin quotes it: which store and why, no CLI fix.
        static func storeForPlugin(_ error: StoreError) -> PluginMessage {
            let why = StoreErrors.reason(error.reason)
            return PluginMessage(english: why.english, korean: why.korean)
        }
    }
}
