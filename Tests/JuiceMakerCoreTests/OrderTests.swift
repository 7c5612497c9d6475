import JuiceTestSupport
import Testing
@testable import JuiceMakerCore

@Suite("Orders", .tags(.unit))
struct OrderTests {
    @Test("a made order consumes exactly the recipe times the count")
    func made() throws {
        let fixture = try Fixture()
        #expect(try fixture.maker.make(.mangoKiwi) == .made(consumed: FruitAmounts(kiwi: 1, mango: 2)))
        #expect(try fixture.maker.make(.mangoKiwi, count: 3) == .made(consumed: FruitAmounts(kiwi: 3, mango: 6)))
        #expect(try fixture.maker.stock() == Stock(strawberry: 10, banana: 10, pineapple: 10, kiwi: 6, mango: 2))
        #expect(try fixture.maker.make(.strawberryBanana) == .made(consumed: FruitAmounts(strawberry: 10, banana: 1)))
        #expect(try fixture.maker.stock() == Stock(strawberry: 0, banana: 9, pineapple: 10, kiwi: 6, mango: 2))
    }

    @Test("an order can use the last fruit; stock reaches zero, never below")
    func exactStock() throws {
        let fixture = try Fixture()
        #expect(try fixture.maker.make(.banana, count: 5) == .made(consumed: FruitAmounts(banana: 10)))
        #expect(try fixture.maker.stock().banana == 0)
        #expect(try fixture.maker.make(.banana) == .insufficient(shortages: FruitAmounts(banana: 2)))
        #expect(try fixture.maker.stock().banana == 0)
    }

    @Test("an insufficient order names every short fruit and its exact shortage")
    func insufficient() throws {
        let fixture = try Fixture(stock: Stock(strawberry: 10, banana: 0, pineapple: 10, kiwi: 2, mango: 3))
        #expect(try fixture.maker.make(.strawberry) == .insufficient(shortages: FruitAmounts(strawberry: 6)))
        #expect(
            try fixture.maker.make(.strawberryBanana, count: 2)
                == .insufficient(shortages: FruitAmounts(strawberry: 10, banana: 2)))
        // Mango is short, kiwi is not: only mango is listed.
        #expect(try fixture.maker.make(.mangoKiwi, count: 2) == .insufficient(shortages: FruitAmounts(mango: 1)))
        #expect(
            try fixture.maker.make(.mangoKiwi, count: 3)
                == .insufficient(shortages: FruitAmounts(kiwi: 1, mango: 3)))
    }

    @Test("a failed order changes no stock and journals exactly one orderFailed")
    func failedOrderChangesNothing() throws {
        let fixture = try Fixture()
        let before = try fixture.maker.stock()
        #expect(
            try fixture.maker.make(.strawberryBanana, count: 2)
                == .insufficient(shortages: FruitAmounts(strawberry: 10, banana: 0)))
        #expect(try fixture.maker.stock() == before)
        let journal = try fixture.journal
        #expect(
            journal.map(\.event) == [
                .orderFailed(juice: .strawberryBanana, count: 2, shortages: FruitAmounts(strawberry: 10))
            ])
        #expect(journal.map(\.sequence) == [1])
        #expect(fixture.recorder.events == journal)
    }

    @Test("an order for fewer than one juice, or so many the recipe overflows, is refused")
    func invalidCount() throws {
        let fixture = try Fixture()
        for count in [0, -1, Int.min] {
            try fixture.expectRefused(.invalidCount(count)) { () throws(JuiceMakerError) in
                try fixture.maker.make(.kiwi, count: count)
            }
        }
        try fixture.expectRefused(.invalidCount(Int.max / 2)) { () throws(JuiceMakerError) in
            try fixture.maker.make(.kiwi, count: Int.max / 2)
        }
        // 500,001 banana juices need 1,000,002 bananas: more than the stock can ever hold.
        try fixture.expectRefused(.invalidCount(500_001)) { () throws(JuiceMakerError) in
            try fixture.maker.make(.banana, count: 500_001)
        }
    }

    @Test("the largest order the maximum stock allows is a shortage, not a bad value")
    func largestPossibleOrder() throws {
        let fixture = try Fixture()
        #expect(try fixture.maker.make(.banana, count: 500_000) == .insufficient(shortages: FruitAmounts(banana: 999_990)))
    }

    @Test("each juice's largest order is what a full stock makes; one more is refused")
    func largestOrderPerJuice() throws {
        #expect(Juice.strawberry.largestOrder == 62_500)
        #expect(Juice.banana.largestOrder == 500_000)
        #expect(Juice.strawberryBanana.largestOrder == 100_000)
        #expect(Juice.mangoKiwi.largestOrder == 500_000)
        let fixture = try Fixture()
        for juice in Juice.allCases {
            #expect(throws: Never.self) { try fixture.maker.make(juice, count: juice.largestOrder) }
            try fixture.expectRefused(.invalidCount(juice.largestOrder + 1)) { () throws(JuiceMakerError) in
                try fixture.maker.make(juice, count: juice.largestOrder + 1)
            }
        }
    }

    @Test("order(_:count:) answers with the stock its own transaction left")
    func receiptCarriesTheStock() throws {
        let fixture = try Fixture()
        let receipt = try fixture.maker.order(.mangoKiwi)
        #expect(receipt.result == .made(consumed: FruitAmounts(kiwi: 1, mango: 2)))
        #expect(receipt.stock == Stock(strawberry: 10, banana: 10, pineapple: 10, kiwi: 9, mango: 8))
        #expect(receipt.stock == (try fixture.maker.stock()))
    }
}
