import JuiceMakerCore
import JuiceMakerPluginKit

/// What the person reads when a command worked: confirmations, table headings,
/// one-line event summaries.
extension Catalog {
    enum Results {
        static func orderMade(_ juice: Juice, count: Int) -> T {
            count == 1
                ? T("Here's your \(juice.englishName)! Enjoy!", ko: "\(juice.koreanName) 나왔습니다! 맛있게 드세요!")
                : T("Here are your \(count) \(juice.englishName)s! Enjoy!", ko: "\(juice.koreanName) \(count)잔 나왔습니다! 맛있게 드세요!")
        }

        /// A failed `juice order` without a notifier: what is short and the command that
        /// adds it, on one line. No question: nobody can answer one there.
        static func orderFailed(_ shortages: FruitAmounts, stock: Stock) -> T {
            let (english, korean) = shortageList(shortages)
            let command = restockCommand(shortages, stock: stock)
            return T(
                "Not enough fruit: short of \(english). Add it with '\(command)', then order again.",
                ko: "재료가 모자라요. 부족: \(korean). '\(command)'로 채운 뒤 다시 주문하세요.")
        }

        /// After the notifier's alert and shortages: the command that adds what is short.
        static func orderFix(_ shortages: FruitAmounts, stock: Stock) -> T {
            let command = restockCommand(shortages, stock: stock)
            return T("Add it with '\(command)', then order again.", ko: "'\(command)'로 채운 뒤 다시 주문하세요.")
        }

        /// A failed order under `--quiet`: the one line on stderr that says so.
        static func orderNotMade(_ juice: Juice, count: Int, shortages: FruitAmounts, stock: Stock) -> T {
            let (english, korean) = shortageList(shortages)
            let command = restockCommand(shortages, stock: stock)
            let what = count == 1 ? juice.englishName : EnglishCount.of(count, juice.englishName)
            return T(
                "\(what) not made: short of \(english); add it with '\(command)'.",
                ko: "\(juice.koreanName) \(count)잔 주문에 실패했습니다. 부족: \(korean). '\(command)'로 채우세요.")
        }

        /// `strawberry 6, banana 1` / `딸기 6개, 바나나 1개`.
        private static func shortageList(_ shortages: FruitAmounts) -> (english: String, korean: String) {
            (
                shortages.nonZero.map { "\($0.fruit.englishName) \($0.amount)" }.joined(separator: ", "),
                shortages.nonZero.map { "\($0.fruit.koreanName) \($0.amount)개" }.joined(separator: ", ")
            )
        }

        /// `juice stock add strawberry 6` for one short fruit; for several, the one
        /// change that sets each to what the order needs (`juice stock set strawberry=20 banana=2`;
        /// each at most the stock maximum, as the order's size was checked against it).
        static func restockCommand(_ shortages: FruitAmounts, stock: Stock) -> String {
            let short = shortages.nonZero
            if short.count == 1 { return "juice stock add \(short[0].fruit.id) \(short[0].amount)" }
            return "juice stock set " + short.map { "\($0.fruit.id)=\(stock[$0.fruit] + $0.amount)" }.joined(separator: " ")
        }

        static func stockChanged(_ changes: [(fruit: Fruit, from: Int, to: Int)]) -> T {
            let english = changes.map { "\($0.fruit.emoji) \($0.fruit.englishName) \($0.from) → \($0.to)" }.joined(separator: ", ")
            let korean = changes.map { "\($0.fruit.emoji) \($0.fruit.koreanName) \($0.from) → \($0.to)" }.joined(separator: ", ")
            return T("Stock changed: \(english).", ko: "재고가 바뀌었습니다: \(korean).")
        }

        static let stockUnchanged = T("Nothing changed: the stock already holds those quantities.", ko: "바뀐 것이 없습니다. 재고가 이미 그 수량입니다.")

        static func name(_ fruit: Fruit) -> T { T(fruit.englishName, ko: fruit.koreanName) }
        static func name(_ juice: Juice) -> T { T(juice.englishName, ko: juice.koreanName) }

        static func recipe(_ juice: Juice) -> T {
            T(
                juice.recipe.nonZero.map { "\($0.fruit.emoji) \($0.fruit.englishName) \($0.amount)" }.joined(separator: " + "),
                ko: juice.recipe.nonZero.map { "\($0.fruit.emoji) \($0.fruit.koreanName) \($0.amount)" }.joined(separator: " + "))
        }

        // Headings
        static let juice = T("JUICE", ko: "쥬스")
        static let recipeHeading = T("RECIPE", ko: "레시피")
        static let canMake = T("CAN MAKE", ko: "가능")
        static let fruit = T("FRUIT", ko: "과일")
        static let quantity = T("QUANTITY", ko: "수량")
        static let sequence = T("SEQ", ko: "순번")
        static let time = T("TIME", ko: "시각")
        static let type = T("TYPE", ko: "종류")
        static let details = T("DETAILS", ko: "내용")
        static let subscriber = T("NAME", ko: "이름")
        static let state = T("STATE", ko: "상태")
        static let lag = T("LAG", ko: "지연")
        static let deadLetters = T("DEAD LETTERS", ko: "실패 보관")
        static let enabled = T("enabled", ko: "사용")
        static let disabled = T("disabled", ko: "꺼짐")
        static let notDurable = T("-", ko: "-")
        static let noEvents = T("No events.", ko: "이벤트가 없습니다.")
        static let noSubscribers = T("No subscribers are configured.", ko: "설정된 구독자가 없습니다.")
        static let builtInDefaults = T("built-in defaults", ko: "내장 기본값")
        static let configOrigins = T("Where each value came from:", ko: "각 값의 출처:")

        static func configOrigin(_ origin: EffectiveConfig.Origin) -> T {
            switch origin {
            case .file: T("the config file", ko: "설정 파일")
            case .environment: T("the environment (${NAME} in the config file)", ko: "환경 변수 (설정 파일의 ${NAME})")
            case .default: T("default", ko: "기본값")
            case .storeOption, .storeVariable, .inMemory: T(origin.rawValue, ko: origin.rawValue)
            }
        }

        static func configFile(_ source: String) -> T {
            let source = echo(path: source)
            return T("Config: \(source)", ko: "설정: \(source)")
        }

        static func configWarning(_ warning: ConfigurationError) -> T {
            let what = ConfigErrors.located(warning)
            return T(
                "warning: \(what.english). The subscriber is disabled, so nothing needs it now; set it before enabling the subscriber.",
                ko: "경고: \(what.korean). 구독자가 꺼져 있어 지금은 필요하지 않습니다. 구독자를 켜기 전에 설정하세요.")
        }

        static func configValid(_ source: String, subscribers: [String]) -> T {
            let source = echo(path: source)
            let list = subscribers.isEmpty ? "-" : subscribers.map { echo($0) }.joined(separator: ", ")
            return T("Config OK: \(source) (subscribers: \(list)).", ko: "설정이 올바릅니다: \(source) (구독자: \(list)).")
        }

        static func event(_ event: JuiceMakerEvent) -> T {
            switch event {
            case let .stockChanged(fruit, from, to, reason):
                return T(
                    "\(fruit.emoji) \(fruit.englishName) \(from) → \(to) (\(reason.rawValue))",
                    ko: "\(fruit.emoji) \(fruit.koreanName) \(from) → \(to) (\(reasonKorean(reason)))")
            case let .juiceMade(juice, count, _):
                return T("\(juice.englishName) × \(count) made", ko: "\(juice.koreanName) \(count)잔 완성")
            case let .orderFailed(juice, count, shortages):
                let english = shortages.nonZero.map { "\($0.fruit.englishName) \($0.amount)" }.joined(separator: ", ")
                let korean = shortages.nonZero.map { "\($0.fruit.koreanName) \($0.amount)개" }.joined(separator: ", ")
                return T("\(juice.englishName) × \(count) failed, short: \(english)", ko: "\(juice.koreanName) \(count)잔 실패, 부족: \(korean)")
            }
        }

        private static func reasonKorean(_ reason: StockChangeReason) -> String {
            switch reason {
            case .order: "주문"
            case .restock: "입고"
            case .edit: "수정"
            }
        }
    }
}
