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

    @Test func koreanSeedMessagesForFailureRestockAndSuccess() throws {
        let rig = Rig()
        _ = try attachedNotifier(rig, language: .korean)
        #expect(try rig.maker.make(.strawberry) == .insufficient(shortages: FruitAmounts(strawberry: 6)))
        try rig.maker.add(10, of: .strawberry)
        try rig.maker.make(.strawberry)
        #expect(
            rig.output.texts == [
                "재료가 모자라요. 재고를 수정할까요?\n  🍓 딸기 6개 부족\n",
                "🍓 딸기 10 → 20\n",
                "딸기쥬스 나왔습니다! 맛있게 드세요!\n",
                "🍓 딸기 20 → 4\n",
            ])
        #expect(rig.errors.all.isEmpty)
    }

    @Test func englishSeedMessagesForFailureRestockAndSuccess() throws {
        let rig = Rig()
        _ = try attachedNotifier(rig, language: .english)
        try rig.maker.make(.strawberry)
        try rig.maker.add(10, of: .strawberry)
        try rig.maker.make(.strawberry)
        #expect(
            rig.output.texts == [
                "Not enough fruit. Edit the stock?\n  🍓 strawberry: 6 short\n",
                "🍓 strawberry 10 → 20\n",
                "Here's your strawberry juice! Enjoy!\n",
                "🍓 strawberry 20 → 4\n",
            ])
    }

    @Test func severalJuicesAndSeveralShortages() throws {
        let rig = Rig(stock: Stock(strawberry: 0, banana: 0, pineapple: 10, kiwi: 10, mango: 10))
        _ = try attachedNotifier(rig, language: .korean)
        try rig.maker.make(.mango, count: 3)
        try rig.maker.make(.strawberryBanana, count: 2)
        #expect(
            rig.output.lines == [
                "망고쥬스 3잔 나왔습니다! 맛있게 드세요!",
                "🥭 망고 10 → 1",
                "재료가 모자라요. 재고를 수정할까요?",
                "  🍓 딸기 20개 부족",
                "  🍌 바나나 2개 부족",
            ])

        let english = Rig()
        _ = try attachedNotifier(english, language: .english)
        try english.maker.make(.mango, count: 3)
        try english.maker.make(.mangoKiwi, count: 2)
        #expect(
            english.output.lines == [
                "Here are your 3 mango juices! Enjoy!",
                "🥭 mango 10 → 1",
                "Not enough fruit. Edit the stock?",
                "  🥭 mango: 3 short",
            ])
    }

    @Test func stockLinesOnePerChangedFruitWithEmojiAndArrow() throws {
        let rig = Rig()
        _ = try attachedNotifier(rig, language: .korean)
        try rig.maker.make(.mangoKiwi)
        try rig.maker.set([.banana: 4, .pineapple: 12, .kiwi: 9])
        #expect(
            rig.output.lines == [
                "망고키위쥬스 나왔습니다! 맛있게 드세요!",
                "🥝 키위 10 → 9",
                "🥭 망고 10 → 8",
                "🍌 바나나 10 → 4",
                "🍍 파인애플 10 → 12",
            ])
    }

    @Test(arguments: [(false, true), (true, false), (false, false)])
    func noEscapeCodesUnlessColourAllowedOnATerminal(colorAllowed: Bool, terminal: Bool) throws {
        let rig = Rig(terminal: terminal)
        _ = try attachedNotifier(rig, language: .english, colorAllowed: colorAllowed)
        try rig.maker.make(.strawberry)
        try rig.maker.make(.banana)
        #expect(!rig.output.texts.isEmpty)
        #expect(rig.output.texts.allSatisfy { !$0.contains("\u{1B}") })
    }

    @Test func colourWhenAllowedOnATerminal() throws {
        let rig = Rig(terminal: true)
        _ = try attachedNotifier(rig, language: .korean, colorAllowed: true)
        try rig.maker.make(.strawberry)
        try rig.maker.make(.banana)
        #expect(
            rig.output.lines == [
                "\u{1B}[1;31m재료가 모자라요. 재고를 수정할까요?\u{1B}[0m",
                "\u{1B}[33m  🍓 딸기 6개 부족\u{1B}[0m",
                "\u{1B}[1;32m바나나쥬스 나왔습니다! 맛있게 드세요!\u{1B}[0m",
                "\u{1B}[2m🍌 바나나 10 → 8\u{1B}[0m",
            ])
    }

    @Test func eventsFilterAndHiddenStockLines() throws {
        let failuresOnly = Rig()
        _ = try attachedNotifier(failuresOnly, language: .english, [("events", .array([.string("orderFailed")]))])
        try failuresOnly.maker.make(.banana)
        try failuresOnly.maker.make(.strawberry)
        try failuresOnly.maker.add(1, of: .kiwi)
        #expect(failuresOnly.output.lines == ["Not enough fruit. Edit the stock?", "  🍓 strawberry: 6 short"])

        let noStock = Rig()
        _ = try attachedNotifier(noStock, language: .english, [("stockChanges", .bool(false))])
        try noStock.maker.make(.banana)
        try noStock.maker.add(1, of: .kiwi)
        #expect(noStock.output.lines == ["Here's your banana juice! Enjoy!"])
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
        _ = try attachedNotifier(rig, language: .korean)
        try rig.maker.make(.kiwi)
        let rendered = try rig.journal().flatMap { CLINotifier.render($0, language: .korean, color: false) }
        #expect(rendered == rig.output.lines)
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
