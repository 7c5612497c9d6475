import Foundation
import JuiceMakerCore
import JuiceTestSupport
import SQLiteStore
import Testing

/// `events(after:kinds:limit:newest:)` answers from the indexes what a full scan
/// filtered in Swift answers.
@Suite("Journal queries", .tags(.unit), .offPool)
struct JournalQueryTests {
    @Test("every combination of kinds, after, limit and end equals a filtered full scan")
    func equalsAFilteredScan() throws {
        let directory = try TemporaryDirectory()
        let store = try SQLiteStore(path: directory.path + "/juice.db", initialStock: Stock(repeating: 30))
        let maker = JuiceMaker(store: store)
        var random = SystemRandomNumberGenerator()
        for _ in 0..<300 {
            let juice = Juice.allCases.randomElement(using: &random) ?? .banana
            if Int.random(in: 0..<5, using: &random) == 0 {
                try maker.add(Int.random(in: 1...20, using: &random), of: Fruit.allCases.randomElement(using: &random) ?? .kiwi)
            } else {
                try maker.make(juice)
            }
        }
        let all = try store.events(after: 0, limit: Int.max)
        let kindSets: [Set<EventKind>?] = [nil, [.orderFailed], [.juiceMade, .orderFailed], Set(EventKind.allCases)]
        for kinds in kindSets {
            for after in [0, 1, Int64(all.count / 2), Int64(all.count)] {
                for limit in [1, 10, 250, Int.max] {
                    for newest in [false, true] {
                        let matching = all.filter { $0.sequence > after && (kinds?.contains($0.event.kind) ?? true) }
                        let expected = newest ? Array(matching.suffix(limit)) : Array(matching.prefix(limit))
                        let answered = try store.events(after: after, kinds: kinds, limit: limit, newest: newest)
                        #expect(answered == expected, "kinds \(String(describing: kinds)) after \(after) limit \(limit) newest \(newest)")
                    }
                }
            }
        }
        #expect(all.contains { $0.event.kind == .orderFailed })
    }
}
