import Foundation
import JuiceTestSupport
import SQLiteStore
import Testing

/// A few of the fuzzer's damaged copies through the real `juice store recover`, as a
/// person runs it: no trap (a signal, not exit 0 or 74), a refusal in one line, and
/// on success a new store that `juice store check` passes, `juice events` reads whole,
/// and `juice order` adds to after every cursor.
@Suite(.tags(.process), .notInUnitRun, .offPool) struct DamageFuzzCLITests {
    /// One case of every kind, on the first store: a cut that leaves cursors past the
    /// journal's end, a page size of 16,384, seed 3 of the others.
    static let cases = DamageKind.allCases.map { kind in
        DamageCase(store: 1, kind: kind, seed: kind == .truncation ? 1 : kind == .pageSize ? 4 : 3)
    }

    @Test(arguments: cases)
    func theCommandRecoversADamagedCopy(damage: DamageCase) throws {
        let sandbox = try JuiceSandbox()
        let store = try FuzzStore.shared(seed: damage.store)
        let copy = store.damaged(damage)
        let source = sandbox.root + "/work/damaged.db"
        let target = sandbox.root + "/work/new.db"
        try Data(copy.bytes).write(to: URL(fileURLWithPath: source))
        let start = ContinuousClock.now
        let recover = try sandbox.run(["--store", source, "store", "recover", "--to", target, "--json"])
        print("damage fuzz: juice store recover: \(damage) [\(copy.what)] exit \(recover.status) in \(ContinuousClock.now - start)")
        #expect(recover.status == 0 || recover.status == 74, "\(damage) [\(copy.what)]: exit \(recover.status) (a trap?): \(recover.stderr)")
        guard recover.status == 0 else {
            #expect(recover.stderr.split(separator: "\n").count == 1, "\(damage): \(recover.stderr)")
            #expect(!FileManager.default.fileExists(atPath: target), "\(damage): a refused recovery left \(target)")
            return
        }
        let report = try #require(try recover.json() as? [String: Any], "\(recover.stdout)")
        let saved = try #require(report["events"] as? Int)

        let check = try sandbox.run(["--store", target, "store", "check"])
        #expect(check.status == 0, "\(damage) [\(copy.what)]: juice store check: exit \(check.status): \(check.stdout) \(check.stderr)")
        let events = try sandbox.run(["--store", target, "events", "--json"])
        #expect(events.status == 0, "\(damage) [\(copy.what)]: juice events: exit \(events.status): \(events.stderr)")
        #expect(events.stdout.split(separator: "\n").count == saved, "\(damage): juice events printed another count than the \(saved) saved")

        let cursors = try SQLiteStore(path: target).cursors()
        let order = try sandbox.run(["--store", target, "order", "banana"])
        #expect(order.status == 0 || order.status == 1, "\(damage) [\(copy.what)]: juice order: exit \(order.status): \(order.stderr)")
        let new = try SQLiteStore(path: target).lastSequence()
        for (subscriber, cursor) in cursors.sorted(by: { $0.key < $1.key }) {
            #expect(new > cursor, "\(damage) [\(copy.what)]: sequence reused: new event \(new) <= cursor \(cursor) (\(subscriber))")
        }
    }
}
