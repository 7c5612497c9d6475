import Foundation
import JuiceTestSupport
import Testing
import NATSClient

/// A stream deleted and created again under `juice fleet deliver --follow` is a new
/// history: every event of the new stream reaches the webhook (none acknowledged
/// unseen), the old stream's events are not sent again, and it is said.
@Suite(.tags(.nats, .process, .slow), .notInUnitRun, .requiresNATS, .serialized)
struct FleetStreamIdentityTests {
    typealias Fleet = FleetConsumerLifetimeTests.Fleet

    /// Lines of the central host's stderr that contain `text`.
    static func lines(_ fleet: Fleet, containing text: String) -> [Substring] {
        fleet.central.errors.split(separator: "\n").filter { $0.contains(text) }
    }

    /// Checks, with a reader of its own, that every event the stream holds now reached the
    /// webhook, and that each event reached it once.
    static func expectEveryEventOfTheStreamDelivered(_ fleet: Fleet, expected: Set<String>, all: Set<String>) async throws {
        let messages = try await FleetIntegrationTests.streamMessages(fleet.server.url)
        let streamed = Set(messages.map(\.id))
        #expect(streamed == expected, "the new stream holds \(streamed.count), published \(expected.count)")
        let arrived = await eventually(within: .seconds(30)) { streamed.isSubset(of: Set(fleet.received)) }
        #expect(arrived, "missing \(streamed.subtracting(fleet.received).count) of \(streamed.count): \(fleet.central.errors)")
        #expect(fleet.received.count == all.count, "\(fleet.received.count) deliveries of \(all.count) events: \(fleet.central.errors)")
        #expect(Set(fleet.received) == all)
        expectBodiesAsPublished(fleet.hook.requests, stream: messages)
    }

    /// Checks that every request for an event of `stream` carried the event as its machine
    /// published it: the message's text, byte for byte, with only `streamsequence` (its
    /// sequence in the stream) added after the machine's own `sequence`.
    static func expectBodiesAsPublished(_ requests: [LoopbackHTTPServer.Request], stream: [FleetIntegrationTests.StreamedMessage]) {
        let published = Dictionary(stream.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        for request in requests {
            guard let id = request.headers["webhook-id"], let message = published[id] else { continue }
            let digits = String(message.streamSequence)
            let added = #","streamsequence":""# + String(repeating: "0", count: max(0, 20 - digits.count)) + digits + #"""#
            guard let data = message.text.range(of: #","data":"#) else {
                Issue.record("the stream's message \(id) has no data: \(message.text)")
                continue
            }
            var expected = message.text
            expected.insert(contentsOf: added, at: data.lowerBound)
            #expect(request.text == expected, "event \(id) as delivered differs from the stream's")
        }
    }

    /// A machine publishes 8 events, read by one `juice fleet deliver --follow`; the stream
    /// is deleted, `meanwhile` runs (told when), the machine publishes 6 more events (creating the
    /// stream when it is missing): each of them reaches the webhook, once, as the stream
    /// holds them, and the deliverer says it reads a new stream and goes on.
    @discardableResult
    static func deleteTheStreamUnderADeliverer(
        meanwhile: (Fleet, NATSConnection, _ deleted: ContinuousClock.Instant) async throws -> Void
    ) async throws -> Fleet {
        let fleet = try await Fleet.started()
        defer { fleet.stop() }
        // More events in the old stream than in the new one: an old ack floor covers the new stream's.
        let first = try await fleet.publish(4)
        let follower = try await fleet.follow(1, until: first)[0]
        defer { terminate(follower) }
        let connection = try fleet.server.connect()
        defer { connection.close() }
        let deleted = ContinuousClock.now
        try connection.deleteStream("JUICEMAKER")
        try await meanwhile(fleet, connection, deleted)
        let later = try await fleet.publish(3)
        try await expectEveryEventOfTheStreamDelivered(fleet, expected: later, all: first.union(later))
        #expect(lines(fleet, containing: "is a new stream").count == 1, "\(fleet.central.errors)")
        #expect(follower.isRunning)
        return fleet
    }

    /// Deleted and created again at once, before the deliverer looks (machines re-create
    /// it on their next publish, within a second): the deliverer takes the new stream
    /// for what it is, and reads it from its first message.
    @Test(.timeLimit(.minutes(3)))
    func aStreamCreatedAgainWithinASecondIsReadFromItsFirstMessage() async throws {
        try await Self.deleteTheStreamUnderADeliverer { _, connection, _ in
            try connection.ensureStream("JUICEMAKER", subjects: "juicemaker.>", replicas: 1)
        }
    }

    /// Deleted, said gone, and created again by a machine's publish 5 s after the
    /// deletion: delivery goes on by itself, from the new stream's first message.
    @Test(.timeLimit(.minutes(3)))
    func aStreamGoneForSecondsIsSaidAndReadFromItsFirstMessageWhenItReturns() async throws {
        let fleet = try await Self.deleteTheStreamUnderADeliverer { fleet, _, deleted in
            let said = await eventually(within: .seconds(30)) { !Self.lines(fleet, containing: "was deleted on the server").isEmpty }
            #expect(said, "\(fleet.central.errors)")
            // Not a wait for anything: the outage this case is about lasts 5 s (the deliverer
            // said it above), longer than two of its looks; then the machine's next publish
            // creates the stream again.
            try await Task.sleep(until: deleted + .seconds(5))
        }
        #expect(Self.lines(fleet, containing: "stream JUICEMAKER was deleted on the server").count == 1, "\(fleet.central.errors)")
    }

    /// `juice fleet watch` follows a stream that is deleted: it says so (not silent), and
    /// when a machine's publish creates it again it shows the new stream from its first
    /// message, each event once, said in one line.
    @Test(.timeLimit(.minutes(3)))
    func fleetWatchSaysAStreamIsGoneAndShowsTheNewOne() async throws {
        let fleet = try await Fleet.started()
        defer { fleet.stop() }
        let first = try await fleet.publish(2)
        let viewer = try JuiceSandbox.fleetMachine("viewer", subscribers: "[]", extra: #""fleet": {"url": "\#(fleet.server.url)"}"#)
        let watch = try viewer.start(["fleet", "watch", "--since", "all", "--json"], inputFile: "/dev/null")
        defer { terminate(watch.process) }
        let shownIDs = { () -> [String] in
            watch.stdout.split(separator: "\n").compactMap {
                (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["id"] as? String
            }
        }
        #expect(await eventually(within: .seconds(30)) { Set(shownIDs()) == first }, "\(watch.stderr)")
        let connection = try fleet.server.connect()
        defer { connection.close() }
        try connection.deleteStream("JUICEMAKER")
        let said = await eventually(within: .seconds(30)) { watch.stderr.contains("stream JUICEMAKER was deleted on the server") }
        #expect(said, "\(watch.stderr)")
        let later = try await fleet.publish(2)
        let shown = await eventually(within: .seconds(30)) { later.isSubset(of: Set(shownIDs())) }
        #expect(shown, "\(watch.stderr)")
        _ = await watch.terminated()
        let ids = shownIDs()
        #expect(ids.count == first.count + later.count && Set(ids) == first.union(later), "each event once: \(ids.count)")
        let lines = watch.stderr.split(separator: "\n")
        #expect(lines.filter { $0.contains("was deleted on the server") }.count == 1, "\(watch.stderr)")
        #expect(lines.filter { $0.contains("is a new stream") }.count == 1, "\(watch.stderr)")
    }
}
