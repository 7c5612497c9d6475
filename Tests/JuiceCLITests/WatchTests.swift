import Foundation
import JuiceTestSupport
import Testing

/// `juice watch` follows the journal while other `juice` processes write to the
/// same store. Waits are bounded safety nets, never speed assertions.
@Suite(.tags(.process), .notInUnitRun, .offPool) struct WatchTests {
    @Test func showsOrdersMadeByOtherProcessesAndStopsCleanlyOnCtrlC() throws {
        let sandbox = try JuiceSandbox()
        try sandbox.run(["order", "banana"])
        // --since 0 replays the first order: once it shows, the watcher is following.
        let watch = try sandbox.start(["watch", "--since", "0"])
        #expect(watch.wait(until: { $0.contains("Here's your banana juice! Enjoy!") }), "\(watch.stderr)")
        for _ in 0..<3 {
            #expect(try sandbox.run(["order", "mango-kiwi"]).status == 0)
        }
        let made = "Here's your mango-kiwi juice! Enjoy!"
        #expect(watch.wait(until: { occurrences(of: made, in: $0) == 3 }), "\(watch.stdout)")
        #expect(watch.interrupt() == 130)
        let out = watch.stdout
        #expect(occurrences(of: made, in: out) == 3)
        #expect(out.contains("🥝 kiwi 10 → 9\n🥭 mango 10 → 8\n"))
        #expect(out.contains("🥝 kiwi 8 → 7\n🥭 mango 6 → 4\n"))
        #expect(watch.stderr.isEmpty, "\(watch.stderr)")
    }

    @Test func sinceReplaysExactlyTheEventsAfterN() throws {
        let sandbox = try JuiceSandbox()
        try sandbox.run(["order", "mango-kiwi"])  // events 1…3
        try sandbox.run(["order", "strawberry"])  // event 4 (orderFailed)
        try sandbox.run(["order", "kiwi"])  // events 5, 6
        let watch = try sandbox.start(["watch", "--since", "3", "--json"])
        #expect(watch.wait(until: { $0.split(separator: "\n").count >= 3 }))
        #expect(watch.interrupt() == 130)
        let lines = watch.stdout.split(separator: "\n")
        let objects = lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(objects.count == lines.count, "every line is one JSON object")
        #expect(objects.compactMap { $0["sequence"] as? String }.compactMap { Int($0) } == [4, 5, 6])
        #expect(objects.map { $0["specversion"] as? String } == ["1.0", "1.0", "1.0"])
        #expect(
            objects.map { $0["type"] as? String } == [
                "juicemaker.order.failed", "juicemaker.juice.made", "juicemaker.stock.changed",
            ])
    }

    @Test func typeFiltersWhatIsShown() throws {
        let sandbox = try JuiceSandbox(language: "ko_KR.UTF-8")
        try sandbox.run(["order", "mango-kiwi"])
        try sandbox.run(["order", "strawberry"])
        try sandbox.run(["order", "kiwi"])
        let watch = try sandbox.start(["watch", "--since", "0", "--type", "juiceMade", "--type", "orderFailed"])
        #expect(watch.wait(until: { $0.contains("키위쥬스 나왔습니다!") && $0.contains("망고키위쥬스 나왔습니다!") }))
        #expect(watch.interrupt() == 130)
        // Nobody answers a question in `watch`: the alert states the failure.
        #expect(watch.stdout.contains("재료가 모자라요.\n  🍓 딸기 6개 부족\n"), "\(watch.stdout)")
        #expect(!watch.stdout.contains("수정할까요"))
        #expect(!watch.stdout.contains("→"), "no stockChanged lines: \(watch.stdout)")
    }

    @Test func badOptionsAreRefusedBeforeAnythingRuns() throws {
        let sandbox = try JuiceSandbox()
        #expect(try sandbox.run(["watch", "--type", "juiceSpilled"]).status == 64)
        #expect(try sandbox.run(["watch", "--since", "-1"]).status == 65)
        #expect(try sandbox.run(["watch", "--since", "x"]).status == 64)
        #expect(sandbox.storeBytes() == nil, "no store was created")
    }

    @Test func helpDescribesTheCommand() throws {
        let sandbox = try JuiceSandbox()
        let result = try sandbox.run(["watch", "--help"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("--since <sequence>"))
        #expect(result.stdout.contains("--type <type>"))
    }
}

/// Without `--since`, `watch` starts after the newest event: what happened before it
/// started is never shown, everything after is, in order and without gaps.
@Suite(.tags(.process), .notInUnitRun, .offPool) struct WatchStartTests {
    @Test func startsAfterTheNewestEvent() throws {
        let sandbox = try JuiceSandbox()
        try sandbox.run(["order", "banana"])  // events 1, 2: before the watcher
        let watch = try sandbox.start(["watch", "--json"])
        // The watcher gives no sign of being ready, so order until it has shown one.
        var seen = false
        for _ in 0..<20 where !seen {
            #expect(try sandbox.run(["order", "kiwi"]).status == 0)
            seen = watch.wait(until: { !$0.isEmpty }, limit: .seconds(1))
        }
        #expect(seen)
        try sandbox.run(["order", "pineapple"])
        // The pineapple juice's stockChanged is the last event of that change.
        #expect(watch.wait(until: { $0.contains("\"type\":\"juicemaker.stock.changed\",\"subject\":\"pineapple\"") }))
        #expect(watch.interrupt() == 130)
        let sequences = watch.stdout.split(separator: "\n").compactMap { line -> Int? in
            let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            return (object?["sequence"] as? String).flatMap { Int($0) }
        }
        let first = try #require(sequences.first)
        #expect(first > 2, "nothing from before the watcher started")
        #expect(sequences == Array(first...(first + sequences.count - 1)), "in order, no gaps")
        #expect(sequences.last == (try sandbox.journal().count))
    }
}
