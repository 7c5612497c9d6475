import CLINotifierPlugin
import JuiceJSON
import JuiceMakerCore
import JuiceMakerPluginKit
import JuiceTestSupport
import Testing

@Suite("CLI notifier", .tags(.unit))
struct CLINotifierTests {
    private func attachedNotifier(
        _ rig: Rig, language: Language, colorAllowed: Bool = false, _ values: [(key: String, value: JSONValue)] = []
    ) throws -> CLINotifier {
        let notifier = try CLINotifier(
            configuration: section(1, values), context: rig.context(language: language, colorAllowed: colorAllowed))
        try notifier.attach(to: rig.host)
        return notifier
    }

    /// What a notifier attached to `rig` prints while `actions` run on the rig's maker.
    private func printed(
        by rig: Rig = Rig(), language: Language, colorAllowed: Bool = false, _ values: [(key: String, value: JSONValue)] = [],
        while actions: (JuiceMaker) throws -> Void
    ) throws -> RecordingSink {
        _ = try attachedNotifier(rig, language: language, colorAllowed: colorAllowed, values)
        try actions(rig.maker)
        return rig.output
    }

    @Test func koreanSeedMessagesForFailureRestockAndSuccess() throws {
        let rig = Rig()
        let output = try printed(by: rig, language: .korean) { maker in
            #expect(try maker.make(.strawberry) == .insufficient(shortages: FruitAmounts(strawberry: 6)))
            try maker.add(10, of: .strawberry)
            try maker.make(.strawberry)
        }
        #expect(
            output.texts == [
                "재료가 모자라요. 재고를 수정할까요?\n  🍓 딸기 6개 부족\n",
                "🍓 딸기 10 → 20\n",
                "딸기쥬스 나왔습니다! 맛있게 드세요!\n",
                "🍓 딸기 20 → 4\n",
            ])
        #expect(rig.errors.all.isEmpty)
    }

    @Test func englishSeedMessagesForFailureRestockAndSuccess() throws {
        let output = try printed(language: .english) {
            try $0.make(.strawberry)
            try $0.add(10, of: .strawberry)
            try $0.make(.strawberry)
        }
        #expect(
            output.texts == [
                "Not enough fruit. Edit the stock?\n  🍓 strawberry: 6 short\n",
                "🍓 strawberry 10 → 20\n",
                "Here's your strawberry juice! Enjoy!\n",
                "🍓 strawberry 20 → 4\n",
            ])
    }

    @Test func severalJuicesAndSeveralShortages() throws {
        let korean = try printed(by: Rig(stock: Stock(strawberry: 0, banana: 0, pineapple: 10, kiwi: 10, mango: 10)), language: .korean) {
            try $0.make(.mango, count: 3)
            try $0.make(.strawberryBanana, count: 2)
        }
        #expect(
            korean.lines == [
                "망고쥬스 3잔 나왔습니다! 맛있게 드세요!",
                "🥭 망고 10 → 1",
                "재료가 모자라요. 재고를 수정할까요?",
                "  🍓 딸기 20개 부족",
                "  🍌 바나나 2개 부족",
            ])

        let english = try printed(language: .english) {
            try $0.make(.mango, count: 3)
            try $0.make(.mangoKiwi, count: 2)
        }
        #expect(
            english.lines == [
                "Here are your 3 mango juices! Enjoy!",
                "🥭 mango 10 → 1",
                "Not enough fruit. Edit the stock?",
                "  🥭 mango: 3 short",
            ])
    }

    @Test func stockLinesOnePerChangedFruitWithEmojiAndArrow() throws {
        let output = try printed(language: .korean) {
            try $0.make(.mangoKiwi)
            try $0.set([.banana: 4, .pineapple: 12, .kiwi: 9])
        }
        #expect(
            output.lines == [
                "망고키위쥬스 나왔습니다! 맛있게 드세요!",
                "🥝 키위 10 → 9",
                "🥭 망고 10 → 8",
                "🍌 바나나 10 → 4",
                "🍍 파인애플 10 → 12",
            ])
    }

    @Test(arguments: [(false, true), (true, false), (false, false)])
    func noEscapeCodesUnlessColourAllowedOnATerminal(colorAllowed: Bool, terminal: Bool) throws {
        let output = try printed(by: Rig(terminal: terminal), language: .english, colorAllowed: colorAllowed) {
            try $0.make(.strawberry)
            try $0.make(.banana)
        }
        #expect(!output.texts.isEmpty)
        #expect(output.texts.allSatisfy { !$0.contains("\u{1B}") })
    }

    @Test func colourWhenAllowedOnATerminal() throws {
        let output = try printed(by: Rig(terminal: true), language: .korean, colorAllowed: true) {
            try $0.make(.strawberry)
            try $0.make(.banana)
        }
        #expect(
            output.lines == [
                "\u{1B}[1;31m재료가 모자라요. 재고를 수정할까요?\u{1B}[0m",
                "\u{1B}[33m  🍓 딸기 6개 부족\u{1B}[0m",
                "\u{1B}[1;32m바나나쥬스 나왔습니다! 맛있게 드세요!\u{1B}[0m",
                "\u{1B}[2m🍌 바나나 10 → 8\u{1B}[0m",
            ])
    }

    @Test func eventsFilterAndHiddenStockLines() throws {
        let failuresOnly = try printed(language: .english, [("events", .array([.string("orderFailed")]))]) {
            try $0.make(.banana)
            try $0.make(.strawberry)
            try $0.add(1, of: .kiwi)
        }
        #expect(failuresOnly.lines == ["Not enough fruit. Edit the stock?", "  🍓 strawberry: 6 short"])

        let noStock = try printed(language: .english, [("stockChanges", .bool(false))]) {
            try $0.make(.banana)
            try $0.add(1, of: .kiwi)
        }
        #expect(noStock.lines == ["Here's your banana juice! Enjoy!"])
    }

    @Test func shutdownStopsOutput() async throws {
        let rig = Rig()
        let notifier = try attachedNotifier(rig, language: .english)
        await notifier.shutdown(deadline: generousDeadline())
        try rig.maker.make(.banana)
        #expect(rig.output.texts.isEmpty)
    }

    @Test func catalogIsCompleteInBothLanguages() {
        for language in Language.allCases {
            let catalog = NotificationCatalog(language: language)
            var sentences = [catalog.orderFailed]
            for juice in Juice.allCases {
                sentences += [catalog.juiceMade(juice, count: 1), catalog.juiceMade(juice, count: 2)]
                #expect(catalog.juiceMade(juice, count: 1).contains(juice.name(in: language)))
            }
            for fruit in Fruit.allCases {
                sentences += [catalog.shortage(fruit, amount: 3), catalog.stockChanged(fruit, from: 1, to: 2)]
                #expect(catalog.shortage(fruit, amount: 3).hasPrefix(fruit.emoji + " " + fruit.name(in: language)))
            }
            let hangul = sentences.filter { $0.unicodeScalars.contains { (0xAC00...0xD7A3).contains($0.value) } }
            #expect(hangul.count == (language == .korean ? sentences.count : 0))
        }
    }

    @Test func renderIsPureAndMatchesWhatIsShown() throws {
        let rig = Rig()
        let output = try printed(by: rig, language: .korean) { try $0.make(.kiwi) }
        let rendered = try rig.journal().flatMap { CLINotifier.render($0, language: .korean, color: false) }
        #expect(rendered == output.lines)
        #expect(rendered.first == "키위쥬스 나왔습니다! 맛있게 드세요!")
    }

    @Test func configErrorsNameThePath() {
        let rig = Rig()
        #expect {
            try CLINotifier(configuration: section(1, [("stockChanges", .string("no"))]), context: rig.context())
        } throws: { error in
            (error as? ConfigurationError)?.path == "subscribers[1].stockChanges"
        }
        #expect {
            try CLINotifier(configuration: section(1, [("events", .array([.string("juiceSpilled")]))]), context: rig.context())
        } throws: { error in
            guard let error = error as? ConfigurationError else { return false }
            return error.path == "subscribers[1].events[0]" && error.problem.contains("juiceSpilled")
        }
        #expect {
            try CLINotifier(configuration: section(1, [("events", .string("juiceMade"))]), context: rig.context())
        } throws: { error in
            (error as? ConfigurationError)?.path == "subscribers[1].events"
        }
    }
}
