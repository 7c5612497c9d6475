import CSQLite
import Foundation
import JuiceTestSupport
import Testing

/// Changes a store file behind `juice`'s back with plain SQL (the journal's `event`
/// column is JSON text; `PRAGMA integrity_check` still says ok afterwards).
func tamper(_ path: String, _ sql: String) throws {
    var handle: OpaquePointer?
    guard sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK, let handle else {
        sqlite3_close_v2(handle)
        throw CocoaError(.fileReadUnknown)
    }
    defer { sqlite3_close_v2(handle) }
    sqlite3_busy_timeout(handle, 10_000)
    guard sqlite3_exec(handle, sql, nil, nil, nil) == SQLITE_OK else {
        throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: String(cString: sqlite3_errmsg(handle))])
    }
}

/// A journal row whose JSON is damaged, or whose type a newer `juice` wrote, costs
/// only itself: `events` prints the rest and names it, `watch` and durable delivery
/// pass it (as a dead letter), never stall on it.
@Suite(.tags(.process), .notInUnitRun, .offPool) struct UnreadableJournalRowTests {
    /// Six events (three orders of banana: juiceMade + stockChanged each); row 2 is
    /// damaged JSON, row 4 a type this version does not know.
    private func sandboxWithBadRows(language: String = "en_US.UTF-8") throws -> JuiceSandbox {
        let sandbox = try JuiceSandbox(language: language)
        for _ in 0..<3 { #expect(try sandbox.run(["order", "banana", "--quiet"]).status == 0) }
        try tamper(
            sandbox.storePath,
            """
            UPDATE journal SET event = '{bad' WHERE sequence = 2;
            UPDATE journal SET event = replace(event, 'juicemaker.stock.changed', 'juicemaker.stock.moved\\u001b]0;x'),
                type = 'juicemaker.stock.moved' WHERE sequence = 4;
            """)
        return sandbox
    }

    @Test func eventsPrintsEveryReadableEventNamesEachBadOneAndExits74() throws {
        let sandbox = try sandboxWithBadRows()
        let table = try sandbox.run(["events"])
        #expect(table.status == 74)
        let sequences = table.stdout.split(separator: "\n").dropFirst().compactMap { $0.split(separator: " ").first }
        #expect(sequences == ["1", "3", "5", "6"])
        let lines = table.stderr.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines.first?.hasPrefix("Error: event 2 could not be read") == true)
        #expect(lines.last?.hasPrefix("Error: event 4 could not be read (unknown type") == true)
        #expect(!table.stderr.contains("\u{1b}"), "the row's text is escaped")

        let json = try sandbox.run(["events", "--json"])
        #expect(json.status == 74)
        #expect(json.stdout.split(separator: "\n").count == 4)

        // A bad row does not count toward --limit: the newest 3 events are 3, 5 and 6.
        let limited = try sandbox.run(["events", "--limit", "3", "--json"])
        #expect(limited.status == 74)
        #expect(ids(inJSONLines: limited.stdout).count == 3, "\(limited.stdout)")
        #expect(limited.stderr.contains("event 4"))
        #expect(!limited.stderr.contains("event 2"))
        // Every --since and --limit: as many events as asked, up to the readable ones there are.
        let readable: [Int64] = [1, 3, 5, 6]
        for since in 0...6 {
            for limit in 1...5 {
                let run = try sandbox.run(["events", "--since", "\(since)", "--limit", "\(limit)"])
                let shown = run.stdout.split(separator: "\n").dropFirst().compactMap { Int64($0.split(separator: " ").first ?? "") }
                #expect(shown == Array(readable.filter { $0 > since }.prefix(limit)), "--since \(since) --limit \(limit): \(run.stdout)")
            }
        }

        let korean = try sandboxWithBadRows(language: "ko_KR.UTF-8").run(["events"])
        #expect(korean.status == 74)
        #expect(korean.stderr.contains("오류: 이벤트 2을(를) 읽을 수 없어"))
    }

    @Test func watchReportsABadRowAndGoesOn() throws {
        let sandbox = try sandboxWithBadRows()
        let watch = try sandbox.start(["watch", "--since", "0", "--json"])
        // Six rows, four readable: the four lines arrive, then the watcher is stopped.
        watch.wait(until: { $0.split(separator: "\n").count >= 4 })
        #expect(watch.interrupt() == 130)
        let errors = watch.stderr
        #expect(watch.stdout.split(separator: "\n").count == 4)
        #expect(errors.contains("event 2 could not be read"))
        #expect(errors.contains("event 4 could not be read"))
    }

    @Test func durableDeliveryDeadLettersABadRowAndDeliversTheRest() throws {
        let sandbox = try sandboxWithBadRows()
        let received = sandbox.root + "/received.jsonl"
        let config = try sandbox.write(
            #"""
            {"subscribers": [{"type": "command", "name": "audit", "command": ["/bin/sh", "-c", "cat >> \#(received)"]}]}
            """#, to: "config.json")
        let deliver = try sandbox.run(["deliver", "--config", config])
        #expect(deliver.status == 0, "\(deliver.stderr)")
        let lines = (try? String(contentsOfFile: received, encoding: .utf8))?.split(separator: "\n") ?? []
        #expect(lines.count == 4)
        #expect(deliver.stderr.contains("skipped event 2"))
        #expect(deliver.stderr.contains("skipped event 4"))

        let listed = try sandbox.run(["subscribers", "--json", "--config", config])
        let items = try #require(try listed.json() as? [[String: Any]])
        #expect(items.first?["deadLetters"] as? Int == 2)
        #expect(items.first?["cursor"] as? Int == 6)

        // Sent again: still unreadable, so they stay, said once each, and nothing else is sent.
        let retry = try sandbox.run(["subscribers", "retry", "audit", "--dead-letters", "--config", config])
        #expect(retry.stderr.contains("dead letter 2 still cannot be read"), "exit \(retry.status), stdout: \(retry.stdout)")
        #expect(retry.stderr.contains("dead letter 4 still cannot be read"))
        let after = try sandbox.run(["subscribers", "--json", "--config", config])
        #expect((try after.json() as? [[String: Any]])?.first?["deadLetters"] as? Int == 2)
        #expect(((try? String(contentsOfFile: received, encoding: .utf8))?.split(separator: "\n").count) == 4)
    }
}
