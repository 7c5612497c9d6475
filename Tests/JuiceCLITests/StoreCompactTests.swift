import Foundation
import JuiceMakerCore
import JuiceTestSupport
import SQLiteStore
import Testing

/// `juice store compact` on a history of about a year: the same `report --json` and
/// metrics counters before and after, events from where history starts, numbering that
/// goes on, `store check` that knows the rollups; and `juice deliver --follow`
/// compacting on its own once its subscriber has passed the old events.
@Suite(.tags(.process), .notInUnitRun, .offPool) struct StoreCompactTests {
    private static let hour: Int64 = 3_600_000
    private static let day: Int64 = 86_400_000

    private static func reports(at: String) -> [[String]] {
        [
            ["report", "--since", "60w", "--by", "week", "--at", at, "--json"],
            ["report", "--since", "400d", "--by", "day", "--at", at, "--json"],
            ["report", "--since", "300d", "--by", "hour", "--at", at, "--json"],
            ["report", "--since", "7d", "--at", at, "--json"],
            ["report", "picklist", "--cover", "3d", "--since", "30w", "--at", at, "--json"],
        ]
    }

    /// The metrics' lines but the store's size in bytes (compaction changes it).
    private func counters(_ sandbox: JuiceSandbox) throws -> [String] {
        let run = try sandbox.run(["metrics"])
        #expect(run.status == 0, "\(run.stderr)")
        return run.stdout.split(separator: "\n").map(String.init).filter { !$0.contains("bytes") }
    }

    private func sequences(_ sandbox: JuiceSandbox) throws -> [Int64] {
        let run = try sandbox.run(["events", "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        return try run.stdout.split(separator: "\n").map { line in
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            return Int64(try #require(object["sequence"] as? String)) ?? -1
        }
    }

    @Test func reportsAndMetricsAreTheSameAfterCompaction() async throws {
        let sandbox = try JuiceSandbox(config: #"{"subscribers": [], "store": {"retention": "120d"}}"#)
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        _ = try await offPool {
            try ReportHistory.write(to: sandbox.storePath, seed: 0x5E7E_47, changes: 500, start: now - 400 * Self.day, maximumStep: 36 * Self.hour)
        }
        let at = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: Double(now / Self.hour * Self.hour) / 1000))
        let before = try Self.reports(at: at).map { try sandbox.run($0) }
        for run in before { #expect(run.status == 0, "\(run.stderr)") }
        let countersBefore = try counters(sandbox)
        let eventsBefore = try sequences(sandbox)
        let last = try #require(eventsBefore.last)
        // Some events are older than 120 days, some newer.
        let cutoff = now - 120 * Self.day
        let older = try SQLiteStore(path: sandbox.storePath).events(after: 0, limit: Int.max).filter {
            Int64($0.time.timeIntervalSince1970 * 1000) < cutoff
        }.count
        #expect(older > 10 && older < eventsBefore.count - 10, "\(older) of \(eventsBefore.count)")

        let compact = try sandbox.run(["store", "compact", "--json"])
        #expect(compact.status == 0, "\(compact.stderr)")
        let result = try #require(try compact.json() as? [String: Any])
        #expect((result["deletedEvents"] as? NSNumber)?.intValue == older)
        let start = try #require((result["historyStart"] as? NSNumber)?.int64Value)
        #expect(start == Int64(older) + 1)

        for (arguments, run) in zip(Self.reports(at: at), before) {
            let after = try sandbox.run(arguments)
            #expect(after.status == 0, "\(after.stderr)")
            #expect(after.stdout == run.stdout, "\(arguments)")
        }
        #expect(try counters(sandbox) == countersBefore)
        #expect(try sequences(sandbox) == Array(eventsBefore.drop { $0 < start }))

        let check = try sandbox.run(["store", "check"])
        #expect(check.status == 0, "\(check.stderr)")
        #expect(check.stdout.contains("history starts at sequence \(start): \(older) older events"), "\(check.stdout)")

        // Nothing more is old enough; a new order is numbered after the last event.
        let again = try sandbox.run(["store", "compact", "--json"])
        #expect((try again.json() as? [String: Any])?["deletedEvents"] as? NSNumber == 0)
        #expect(try sandbox.run(["order", "banana"]).status == 0)
        #expect(try sequences(sandbox).drop { $0 <= last }.first == last + 1)
    }

    private static func fileSize(_ path: String) throws -> Int64 {
        try #require((try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value)
    }

    /// A store created now gives the deleted events' pages back: the file shrinks. One an
    /// older juice created (no free pages kept apart) says so and how to change it;
    /// `--rewrite` rewrites it once, the reports unchanged, and it shrinks from then on.
    @Test(arguments: [true, false]) func compactionGivesSpaceBack(createdNow: Bool) async throws {
        let sandbox = try JuiceSandbox(config: #"{"subscribers": [], "store": {"retention": "30d"}}"#)
        var options = SQLiteStore.Options()
        options.keepsFreePagesApart = createdNow
        _ = try SQLiteStore(path: sandbox.storePath, initialStock: Stock(repeating: 12), options: options)
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        _ = try await offPool {
            try ReportHistory.write(to: sandbox.storePath, seed: 0x5BACE, changes: 1_500, start: now - 400 * Self.day, maximumStep: 12 * Self.hour)
        }
        let at = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: Double(now / Self.hour * Self.hour) / 1000))
        let before = try Self.reports(at: at).map { try sandbox.run($0) }
        let sizeBefore = try Self.fileSize(sandbox.storePath)

        let compact = try sandbox.run(["store", "compact", "--json"])
        #expect(compact.status == 0, "\(compact.stderr)")
        let result = try #require(try compact.json() as? [String: Any])
        #expect((result["deletedEvents"] as? NSNumber)?.intValue ?? 0 > 500, "\(result)")
        #expect(result["givesSpaceBack"] as? Bool == createdNow, "\(result)")
        #expect(((result["freedPages"] as? NSNumber)?.intValue ?? 0 > 0) == createdNow, "\(result)")
        #expect((try Self.fileSize(sandbox.storePath) < sizeBefore) == createdNow)
        if !createdNow {
            let said = try sandbox.run(["store", "compact"])
            #expect(said.stdout.contains("created by an older juice") && said.stdout.contains("--rewrite"), "\(said.stdout)")
            let rewrite = try sandbox.run(["store", "compact", "--rewrite", "--json"])
            #expect(rewrite.status == 0, "\(rewrite.stderr)")
            let rewritten = try #require(try rewrite.json() as? [String: Any])
            #expect(rewritten["rewritten"] as? Bool == true && rewritten["givesSpaceBack"] as? Bool == true, "\(rewritten)")
            #expect(try Self.fileSize(sandbox.storePath) < sizeBefore)
        }
        // Either way the reports read the same, the store checks sound, and a second
        // rewrite finds nothing to do.
        for (arguments, run) in zip(Self.reports(at: at), before) {
            #expect(try sandbox.run(arguments).stdout == run.stdout, "\(arguments)")
        }
        #expect(try sandbox.run(["store", "check"]).status == 0)
        let again = try #require(try sandbox.run(["store", "compact", "--rewrite", "--json"]).json() as? [String: Any])
        #expect(again["rewritten"] as? Bool == false && again["givesSpaceBack"] as? Bool == true, "\(again)")
    }

    @Test func withoutARetentionNothingIsCompacted() throws {
        let sandbox = try JuiceSandbox(config: #"{"subscribers": []}"#)
        #expect(try sandbox.run(["order", "banana"]).status == 0)
        let run = try sandbox.run(["store", "compact"])
        #expect(run.status == 78)
        #expect(run.stderr.contains("no retention"), "\(run.stderr)")
        let bad = try sandbox.run(["store", "compact", "--retention", "4x"])
        #expect(bad.status == 65)
        let config = try sandbox.run(["config", "check"], config: try sandbox.write(#"{"store": {"retention": "forever"}}"#, to: "bad.json"))
        #expect(config.status == 78)
        #expect(config.stderr.contains("store.retention"), "\(config.stderr)")
        #expect(try sequences(sandbox) == [1, 2])
    }

    /// A durable subscriber holds compaction back until it has been sent the old events;
    /// `juice deliver --follow` then compacts on its own when it starts.
    @Test func deliverFollowCompactsOnItsOwn() async throws {
        let sandbox = try JuiceSandbox(
            config: #"""
                {"store": {"retention": "30d"},
                 "subscribers": [{"type": "command", "name": "sink", "command": ["/bin/sh", "-c", "cat > /dev/null"]}]}
                """#)
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        _ = try await offPool {
            try ReportHistory.write(to: sandbox.storePath, seed: 31, changes: 60, start: now - 90 * Self.day, maximumStep: 48 * Self.hour)
        }
        let held = try sandbox.run(["store", "compact", "--json"])
        let heldBy = try #require((try held.json() as? [String: Any])?["stoppedBy"] as? [String: Any])
        #expect(heldBy["subscriber"] as? String == "sink")
        #expect(try sandbox.run(["deliver"]).status == 0)

        let store = try SQLiteStore(path: sandbox.storePath)
        let follow = try sandbox.start(["deliver", "--follow"])
        let compacted = try await offPool { () -> Bool in
            var version = try store.commitVersion()
            while try store.compactionState().through == 0 {
                guard try store.waitForCommit(after: version, timeout: .seconds(30)) else { return false }
                version = try store.commitVersion()
            }
            return true
        }
        #expect(compacted, "\(follow.stderr)")
        #expect(await follow.terminated() == 143)
        #expect(follow.stderr.contains("folded into the report's rollups"), "\(follow.stderr)")
        let first = try #require(try store.events(after: 0, limit: 1).first)
        #expect(first.time.timeIntervalSince1970 * 1000 >= Double(now - 31 * Self.day))
    }
}
