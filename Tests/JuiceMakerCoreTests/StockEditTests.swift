import JuiceTestSupport
import Testing
@testable import JuiceMakerCore

@Suite("Stock edits", .tags(.unit))
struct StockEditTests {
    private let maximum = Stock.maximumQuantity

    @Test("add, remove and set change exactly the named fruits and return the new stock")
    func addRemoveSet() throws {
        let fixture = try Fixture()
        #expect(try fixture.maker.add(5, of: .kiwi) == Stock(strawberry: 10, banana: 10, pineapple: 10, kiwi: 15, mango: 10))
        #expect(try fixture.maker.remove(10, of: .banana) == Stock(strawberry: 10, banana: 0, pineapple: 10, kiwi: 15, mango: 10))
        #expect(
            try fixture.maker.set([.mango: 0, .strawberry: 16])
                == Stock(strawberry: 16, banana: 0, pineapple: 10, kiwi: 15, mango: 0))
        #expect(try fixture.maker.set([.pineapple: maximum]).pineapple == maximum)
        #expect(try fixture.maker.stock() == Stock(strawberry: 16, banana: 0, pineapple: maximum, kiwi: 15, mango: 0))
    }

    @Test("bad amounts are refused with the typed error and change nothing")
    func refusedEdits() throws {
        let fixture = try Fixture()
        try fixture.maker.set([.mango: maximum - 1])
        try fixture.expectRefused(.invalidAmount(.kiwi, 0)) { () throws(JuiceMakerError) in
            try fixture.maker.add(0, of: .kiwi)
        }
        try fixture.expectRefused(.invalidAmount(.kiwi, -3)) { () throws(JuiceMakerError) in
            try fixture.maker.add(-3, of: .kiwi)
        }
        try fixture.expectRefused(.aboveMaximum(.mango, requested: maximum + 1, maximum: maximum)) {
            () throws(JuiceMakerError) in try fixture.maker.add(2, of: .mango)
        }
        // An amount no stock could take is refused as such, never as a saturated sum.
        try fixture.expectRefused(.amountAboveMaximum(.mango, amount: Int.max, maximum: maximum)) {
            () throws(JuiceMakerError) in try fixture.maker.add(Int.max, of: .mango)
        }
        try fixture.expectRefused(.amountAboveMaximum(.kiwi, amount: maximum + 1, maximum: maximum)) {
            () throws(JuiceMakerError) in try fixture.maker.add(maximum + 1, of: .kiwi)
        }
        try fixture.expectRefused(.invalidAmount(.banana, 0)) { () throws(JuiceMakerError) in
            try fixture.maker.remove(0, of: .banana)
        }
        try fixture.expectRefused(.invalidAmount(.banana, -1)) { () throws(JuiceMakerError) in
            try fixture.maker.remove(-1, of: .banana)
        }
        try fixture.expectRefused(.notEnoughToRemove(.banana, available: 10, requested: 11)) {
            () throws(JuiceMakerError) in try fixture.maker.remove(11, of: .banana)
        }
        try fixture.expectRefused(.invalidAmount(.kiwi, -1)) { () throws(JuiceMakerError) in
            try fixture.maker.set([.kiwi: -1])
        }
        try fixture.expectRefused(.aboveMaximum(.kiwi, requested: maximum + 1, maximum: maximum)) {
            () throws(JuiceMakerError) in try fixture.maker.set([.kiwi: maximum + 1])
        }
        // One bad value refuses the whole set: banana is not changed either.
        try fixture.expectRefused(.invalidAmount(.kiwi, -1)) { () throws(JuiceMakerError) in
            try fixture.maker.set([.banana: 3, .kiwi: -1])
        }
        #expect(try fixture.maker.stock() == Stock(strawberry: 10, banana: 10, pineapple: 10, kiwi: 10, mango: maximum - 1))
    }

    @Test("a draft stores nothing until applied, then applies all its changes at once")
    func draftApply() throws {
        let fixture = try Fixture()
        var draft = try fixture.maker.beginEdit()
        try draft.add(6, of: .strawberry)
        try draft.remove(4, of: .kiwi)
        try draft.set(.mango, to: 0)
        #expect(try fixture.maker.stock() == Stock(repeating: 10))
        #expect(try fixture.journal.isEmpty)
        #expect(draft.changes.map(\.fruit) == [.strawberry, .kiwi, .mango])
        let applied = try fixture.maker.apply(draft)
        #expect(applied == Stock(strawberry: 16, banana: 10, pineapple: 10, kiwi: 6, mango: 0))
        #expect(try fixture.maker.stock() == applied)
    }

    @Test("a discarded draft changes nothing")
    func draftDiscard() throws {
        let fixture = try Fixture()
        var draft = try fixture.maker.beginEdit()
        try draft.add(3, of: .banana)
        draft.discardChanges()
        #expect(!draft.hasChanges)
        #expect(draft.quantities == draft.base)
        try fixture.maker.apply(draft)
        #expect(try fixture.maker.stock() == Stock(repeating: 10))
        #expect(try fixture.journal.isEmpty)
        #expect(fixture.recorder.count == 0)
    }

    @Test("a refused draft edit leaves the draft as it was")
    func draftValidation() throws {
        var draft = StockDraft(base: Stock(repeating: 10))
        try draft.add(1, of: .kiwi)
        let before = draft
        #expect(throws: JuiceMakerError.notEnoughToRemove(.kiwi, available: 11, requested: 12)) {
            try draft.remove(12, of: .kiwi)
        }
        #expect(throws: JuiceMakerError.invalidAmount(.kiwi, -1)) { try draft.set(.kiwi, to: -1) }
        #expect(throws: JuiceMakerError.invalidAmount(.kiwi, 0)) { try draft.add(0, of: .kiwi) }
        #expect(throws: JuiceMakerError.aboveMaximum(.kiwi, requested: Stock.maximumQuantity + 1, maximum: Stock.maximumQuantity)) {
            try draft.set(.kiwi, to: Stock.maximumQuantity + 1)
        }
        #expect(throws: JuiceMakerError.amountAboveMaximum(.kiwi, amount: Int.max, maximum: Stock.maximumQuantity)) {
            try draft.add(Int.max, of: .kiwi)
        }
        #expect(draft == before)
    }

    @Test("a draft whose fruit changed underneath it is refused and changes nothing")
    func draftConflict() throws {
        let fixture = try Fixture()
        var draft = try fixture.maker.beginEdit()
        try draft.add(5, of: .kiwi)
        try draft.set(.banana, to: 1)
        try fixture.maker.make(.kiwi)
        try fixture.expectRefused(.draftConflict([.kiwi])) { () throws(JuiceMakerError) in
            try fixture.maker.apply(draft)
        }
        #expect(try fixture.maker.stock().kiwi == 7)
        #expect(try fixture.maker.stock().banana == 10)
    }

    @Test("a draft is applied when only fruits it does not change moved meanwhile")
    func draftUnrelatedChange() throws {
        let fixture = try Fixture()
        var draft = try fixture.maker.beginEdit()
        try draft.set(.banana, to: 1)
        try fixture.maker.make(.kiwi)
        #expect(try fixture.maker.apply(draft) == Stock(strawberry: 10, banana: 1, pineapple: 10, kiwi: 7, mango: 10))
    }
}
