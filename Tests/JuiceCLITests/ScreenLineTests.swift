import JuiceMakerCore
import JuiceTestSupport
import Testing
@testable import JuiceCLI

/// What the two screens understand of a typed line, without a process.
@Suite(.tags(.unit)) struct ScreenLineTests {
    @Test func orderLines() throws {
        #expect(try OrderLine.parse("7") == .order(.mangoKiwi))
        #expect(try OrderLine.parse(" 1 ") == .order(.strawberry))
        #expect(try OrderLine.parse("mango-kiwi") == .order(.mangoKiwi))
        #expect(try OrderLine.parse("망고키위쥬스") == .order(.mangoKiwi))
        #expect(try OrderLine.parse("Mango Kiwi Juice") == .order(.mangoKiwi))
        #expect(try OrderLine.parse("stock") == .stock)
        #expect(try OrderLine.parse("재고") == .stock)
        #expect(try OrderLine.parse("q") == .quit)
        #expect(try OrderLine.parse("QUIT") == .quit)
        #expect(try OrderLine.parse("help") == .help)
        #expect(try OrderLine.parse("") == .empty)
        #expect(throws: ScreenInputError.self) { try OrderLine.parse("8") }
        #expect(throws: ScreenInputError.self) { try OrderLine.parse("0") }
        #expect(throws: ScreenInputError.self) { try OrderLine.parse("lemonade") }
        // Digits only, as on the command line: "+7" is not juice number 7.
        #expect(throws: ScreenInputError.self) { try OrderLine.parse("+7") }
        #expect(throws: ScreenInputError.self) { try StockLine.parse("kiwi +5") }
        #expect(throws: ScreenInputError.self) { try StockLine.parse("+ kiwi +5") }
    }

    @Test func stockLines() throws {
        #expect(try StockLine.parse("+ kiwi") == .add(.kiwi, 1))
        #expect(try StockLine.parse("+kiwi 4") == .add(.kiwi, 4))
        #expect(try StockLine.parse("- kiwi 3") == .remove(.kiwi, 3))
        #expect(try StockLine.parse("- 키위") == .remove(.kiwi, 1))
        #expect(try StockLine.parse("kiwi 20") == .set(.kiwi, 20))
        #expect(try StockLine.parse("kiwi=20") == .set(.kiwi, 20))
        #expect(try StockLine.parse("딸기 0") == .set(.strawberry, 0))
        #expect(try StockLine.parse("apply") == .apply)
        #expect(try StockLine.parse("취소") == .cancel)
        #expect(try StockLine.parse("  ") == .empty)
        #expect(try StockLine.parse("kiwi -1") == .set(.kiwi, -1), "the draft refuses it, not the parser")
        for bad in ["kiwi", "kiwi x", "+ kiwi 1 2", "lemon 3", "foo bar baz", "+"] {
            #expect(throws: ScreenInputError.self, "\(bad)") { try StockLine.parse(bad) }
        }
    }

    @Test func refusedEditsLeaveTheDraftAsItWas() throws {
        var draft = StockDraft(base: Stock(repeating: 10))
        _ = try StockLine.set(.kiwi, 20).edit(&draft)
        let before = draft
        for line in [StockLine.remove(.kiwi, 30), .set(.kiwi, -1), .add(.kiwi, Stock.maximumQuantity)] {
            #expect(throws: JuiceMakerError.self) { try line.edit(&draft) }
        }
        #expect(draft == before)
        #expect(draft.quantities.kiwi == 20)
    }
}
