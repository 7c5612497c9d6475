import Foundation
import JuiceMakerCore
import JuiceTestSupport
import Testing

/// `juice deliver --follow` reloading its config on SIGHUP, as a real process, with
/// real `juice order` processes and loopback HTTP receivers: an added subscriber starts
/// from its cursor, a removed one stops, a changed one restarts without losing an event
/// or sending one again while idle, an unchanged one is untouched, and after a config
/// that does not check the process still reloads the next one.
@Suite(.tags(.process), .notInUnitRun, .offPool) struct DeliverReloadTests {
    private func hook(_ name: String, _ server: LoopbackHTTPServer, extra: String = "") -> String {
        #"{"type": "webhook", "name": "\#(name)", "url": "\#(server.url)"\#(extra)}"#
    }

    /// Replaces the config file in one step (a reader never sees half of it).
    private func configure(_ workspace: JuiceSandbox, _ subscribers: [String]) throws {
        let text = #"{"initialStock": 100000, "backgroundDelivery": false, "subscribers": [\#(subscribers.joined(separator: ", "))]}"#
        let path = try #require(workspace.configPath)
        try Data(text.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
    }

    /// The ids the server got, in arrival order (a window of deliveries may reorder them).
    private func ids(_ server: LoopbackHTTPServer) throws -> [String] {
        try server.requests.map { try CloudEventFormat.decode($0.text).id.description }
    }

    private func journal(_ workspace: JuiceSandbox) async throws -> [String] {
        try await workspace.eventIDs()
    }

    @Test func sighupAppliesAddedRemovedAndChangedSubscribers() async throws {
        let servers = (0..<4).map { _ in LoopbackHTTPServer() }
        for server in servers { try server.start() }
        defer { for server in servers { server.stop() } }
        let (one, two, three, four) = (servers[0], servers[1], servers[2], servers[3])
        let workspace = try JuiceSandbox.delivery(subscribers: "[]", backgroundDelivery: false)
        try configure(workspace, [hook("a", one)])
        // Orders deliver nothing themselves: what the receivers get, the follower sent
        // (so it runs, and catches SIGHUP, once they got something).
        let orders = try workspace.write(#"{"initialStock": 100000, "subscribers": []}"#, to: "orders.json")
        let order = { (juice: String) throws -> Int32 in try workspace.run(["order", juice], config: orders).status }
        let follow = try workspace.start(["deliver", "--follow"])
        for juice in ["banana", "kiwi", "mango"] { #expect(try order(juice) == 0) }
        let pid = follow.process.processIdentifier
        #expect(await one.waitForRequests(6), "\(follow.stderr)")

        // Added: b starts from its cursor (nothing yet), so it gets every event.
        try configure(workspace, [hook("a", one), hook("b", two)])
        kill(pid, SIGHUP)
        #expect(await two.waitForRequests(6), "\(follow.stderr)")
        #expect(try order("banana") == 0)
        #expect(await one.waitForRequests(8), "\(follow.stderr)")
        #expect(await two.waitForRequests(8), "\(follow.stderr)")
        var events = try await journal(workspace)
        #expect(try ids(one).sorted() == events.sorted(), "unchanged: every event once")
        #expect(try ids(two).sorted() == events.sorted())

        // b removed, a changed (ordered now), c added: c getting the history says the
        // reload is done (b was stopped before anything started).
        try configure(workspace, [hook("a", one, extra: #", "ordered": true"#), hook("c", three)])
        kill(pid, SIGHUP)
        #expect(await three.waitForRequests(8), "\(follow.stderr)")
        #expect(try order("kiwi") == 0)
        #expect(await one.waitForRequests(10), "\(follow.stderr)")
        #expect(await three.waitForRequests(10), "\(follow.stderr)")
        events = try await journal(workspace)
        #expect(try ids(one).sorted() == events.sorted(), "changed while idle: restarted from its cursor, nothing lost or sent twice")
        #expect(try ids(three).sorted() == events.sorted())
        #expect(two.requests.count == 8, "removed: stopped")

        // A config that does not check: refused, the one in use stays.
        try Data(#"{"subscribers": [{"type": "webhok", "url": "http://127.0.0.1:1/"}]}"#.utf8).write(
            to: URL(fileURLWithPath: try #require(workspace.configPath)), options: .atomic)
        kill(pid, SIGHUP)
        // It is refused in one line naming the problem (waited for: the good config
        // below must not replace the file before the process reads it).
        #expect(await eventually { follow.stderr.contains("config not reloaded") }, "\(follow.stderr)")
        // The next good config is applied: the process still reloads after a refusal.
        try configure(workspace, [hook("a", one, extra: #", "ordered": true"#), hook("c", three), hook("d", four)])
        kill(pid, SIGHUP)
        #expect(await four.waitForRequests(10), "\(follow.stderr)")
        #expect(await follow.terminated() == 143)
        let lines = follow.stderr.split(separator: "\n")
        let refused = lines.filter { $0.contains("config not reloaded") }
        #expect(refused.count == 1 && refused.allSatisfy { $0.contains("webhok") }, "\(follow.stderr)")
        #expect(lines.filter { $0.contains("config reloaded") }.count == 3, "\(follow.stderr)")
        // Nothing lost while the bad config was refused: a and c have every event once.
        events = try await journal(workspace)
        #expect(try ids(one).sorted() == events.sorted())
        #expect(try ids(three).sorted() == events.sorted())
    }
}
