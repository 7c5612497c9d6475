import Foundation
import JuiceMakerCore
import JuicePrimitives
import JuiceTestSupport
import SQLiteStore
import Testing

/// `juice subscribers rewind NAME --to SEQUENCE|TIME` as real processes, against a
/// loopback HTTP receiver: the receiver gets the same events again, with the ids it
/// already has, in order; never from before where history starts.
@Suite(.tags(.process), .notInUnitRun, .offPool) struct SubscriberRewindTests {
    private func sandbox(_ server: LoopbackHTTPServer) throws -> JuiceSandbox {
        try JuiceSandbox.delivery(
            subscribers: #"[{"type": "webhook", "name": "hook", "url": "\#(server.url)", "ordered": true}]"#, backgroundDelivery: false)
    }

    /// The events the receiver got, in arrival order.
    private func received(_ server: LoopbackHTTPServer) throws -> [EventEnvelope] {
        try server.requests.map { try CloudEventFormat.decode($0.text) }
    }

    private func row(_ workspace: JuiceSandbox) throws -> [String: Any] {
        try #require(try workspace.subscriberRows().first { $0["name"] as? String == "hook" })
    }

    @Test func theReceiverGetsTheSameEventsAgain() async throws {
        let server = LoopbackHTTPServer()
        try server.start()
        defer { server.stop() }
        let workspace = try sandbox(server)
        for juice in ["banana", "kiwi", "mango", "banana", "strawberry"] { #expect(try workspace.run(["order", juice]).status == 0) }
        let events = try workspace.events()
        #expect(try workspace.run(["deliver"]).status == 0)
        #expect(try received(server) == events)

        // From a sequence: that event and every later one again, same ids, in order.
        let rewind = try workspace.run(["subscribers", "rewind", "hook", "--to", "4", "--json"])
        #expect(rewind.status == 0, "\(rewind.stderr)")
        let answer = try #require(try rewind.json() as? [String: Any])
        #expect((answer["from"] as? NSNumber)?.int64Value == events.last?.sequence)
        #expect((answer["to"] as? NSNumber)?.int64Value == 3)
        var shown = try #require(try row(workspace)["rewound"] as? [String: Any])
        #expect(shown["replaying"] as? Bool == true)
        #expect((try row(workspace)["lag"] as? NSNumber)?.intValue == events.count - 3)
        #expect(try workspace.run(["deliver"]).status == 0)
        #expect(try received(server) == events + events.dropFirst(3))
        shown = try #require(try row(workspace)["rewound"] as? [String: Any])
        #expect(shown["replaying"] as? Bool == false)

        // From a time: the first event at or after it.
        let pivot = events[events.count - 3]
        let time = RFC3339.format(pivot.time)
        #expect(try workspace.run(["subscribers", "rewind", "hook", "--to", time]).status == 0)
        #expect(try workspace.run(["deliver"]).status == 0)
        let again = try received(server).dropFirst(events.count * 2 - 3)
        #expect(again.first?.id == events.first { $0.time >= pivot.time }?.id)
        #expect(again.last?.id == events.last?.id)

        // Forward is not a rewind: nothing changes.
        let before = server.requests.count
        let forward = try workspace.run(["subscribers", "rewind", "hook", "--to", "\(events.count + 5)"])
        #expect(forward.status == 0)
        #expect(try workspace.run(["deliver"]).status == 0)
        #expect(server.requests.count == before)
    }

    /// After compaction a rewind stops where history starts: before it, one line says
    /// where, exit 65, and the cursor stays; from it, the kept events come again.
    @Test func aRewindNeverGoesBeforeWhereHistoryStarts() async throws {
        let server = LoopbackHTTPServer()
        try server.start()
        defer { server.stop() }
        let workspace = try sandbox(server)
        for _ in 0..<4 { #expect(try workspace.run(["order", "banana"]).status == 0) }
        #expect(try workspace.run(["deliver"]).status == 0)
        let events = try workspace.events()
        let last = try #require(events.last)
        let compaction = try SQLiteStore(path: workspace.storePath).compact(before: Date(timeIntervalSinceNow: 3600))
        #expect(compaction.historyStart == last.sequence)

        for target in ["1", RFC3339.format(events[0].time)] {
            let refused = try workspace.run(["subscribers", "rewind", "hook", "--to", target])
            #expect(refused.status == 65)
            #expect(refused.stderr.split(separator: "\n").count == 1, "\(refused.stderr)")
            #expect(refused.stderr.contains("history starts at sequence \(last.sequence)"), "\(refused.stderr)")
            #expect((try row(workspace)["cursor"] as? NSNumber)?.int64Value == last.sequence)
        }
        #expect((try row(workspace)["historyStart"] as? NSNumber)?.int64Value == last.sequence)
        #expect(try workspace.run(["subscribers", "rewind", "hook", "--to", "\(last.sequence)"]).status == 0)
        #expect(try workspace.run(["deliver"]).status == 0)
        #expect(try received(server) == events + [last])
    }

    private static let badInput: [(arguments: [String], status: Int32)] = [
        (["subscribers", "rewind", "hook", "--to", "yesterday"], 65),
        (["subscribers", "rewind", "hook", "--to", "0"], 65),
        (["subscribers", "rewind", "nobody", "--to", "1"], 65),
        // A fleet subscriber, with no fleet section to find its consumer through: a config error.
        (["subscribers", "rewind", "hook@fleet", "--to", "1"], 78),
        (["subscribers", "rewind", "hook"], 64),
    ]

    @Test(arguments: 0..<5)
    func badInputChangesNothing(index: Int) throws {
        let (arguments, status) = Self.badInput[index]
        let server = LoopbackHTTPServer()
        try server.start()
        defer { server.stop() }
        let workspace = try sandbox(server)
        #expect(try workspace.run(["order", "banana"]).status == 0)
        #expect(try workspace.run(["deliver"]).status == 0)
        let run = try workspace.run(arguments)
        #expect(run.status == status, "\(run.stderr)")
        if status == 65 || status == 78 { #expect(run.stderr.split(separator: "\n").count == 1, "\(run.stderr)") }
        #expect((try row(workspace)["cursor"] as? NSNumber)?.intValue == 2)
        #expect(try row(workspace)["rewound"] == nil)
    }
}
