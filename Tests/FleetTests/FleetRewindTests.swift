import Foundation
import JuiceTestSupport
import Testing
import NATSClient

/// `juice subscribers rewind NAME@fleet --to SEQUENCE|TIME`: a receiver that lost data
/// gets the stream's messages from there again, with the event ids it knows, through the
/// next `juice fleet deliver`; never while a deliverer reads the consumer.
@Suite(.tags(.nats, .process, .slow), .notInUnitRun, .requiresNATS, .serialized)
struct FleetRewindTests {
    typealias Fleet = FleetConsumerLifetimeTests.Fleet

    /// The ids of the stream's messages from stream sequence `first` on, read by a reader of the test's own.
    static func streamIDs(_ fleet: Fleet, from first: UInt64) async throws -> [String] {
        try await FleetIntegrationTests.streamMessages(fleet.server.url).filter { $0.streamSequence >= first }.map(\.id)
    }

    @Test(.timeLimit(.minutes(3)))
    func aRewoundFleetSubscriberGetsTheStreamAgainFromThereWithTheSameIDs() async throws {
        let fleet = try await Fleet.started()
        defer { fleet.stop() }
        // Stream sequences 1–4, then 5–6 from a later run: stored at times seconds apart.
        var published = try await fleet.publish(2)
        published.formUnion(try await fleet.publish(1))
        #expect(try await fleet.central.running(["fleet", "deliver"]).status == 0, "\(fleet.central.errors)")
        #expect(Set(fleet.received) == published && fleet.received.count == published.count)

        // By stream sequence: 3 to 6 come again, each once, with their ids (in any order:
        // requests are in flight side by side).
        let rewind = try await fleet.central.running(["subscribers", "rewind", "central-hook@fleet", "--to", "3"])
        #expect(rewind.status == 0, "\(rewind.stderr)")
        #expect(rewind.stdout.contains("rewound to stream sequence 3 of stream JUICEMAKER"), "\(rewind.stdout)")
        let before = fleet.received.count
        #expect(try await fleet.central.running(["fleet", "deliver"]).status == 0, "\(fleet.central.errors)")
        let again = Array(fleet.received.dropFirst(before))
        let fromThree = try await Self.streamIDs(fleet, from: 3)
        #expect(again.count == fromThree.count && Set(again) == Set(fromThree), "\(again)")

        // By time: a time between the 4th message's storing and the 5th's (seconds apart,
        // two runs): from the 5th on.
        let fourth = try #require(try Self.storedTime(fleet, 4))
        let fifth = try #require(try Self.storedTime(fleet, 5))
        let between = fourth.addingTimeInterval(fifth.timeIntervalSince(fourth) / 2)
        let format = ISO8601DateFormatter()
        format.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let byTime = try await fleet.central.running(["subscribers", "rewind", "central-hook@fleet", "--to", format.string(from: between)])
        #expect(byTime.status == 0, "\(byTime.stderr)")
        let afterTime = fleet.received.count
        #expect(try await fleet.central.running(["fleet", "deliver"]).status == 0, "\(fleet.central.errors)")
        let sent = Array(fleet.received.dropFirst(afterTime))
        let fromFive = try await Self.streamIDs(fleet, from: 5)
        #expect(sent.count == fromFive.count && Set(sent) == Set(fromFive), "\(sent): \(byTime.stdout)")
        #expect(Set(fleet.received) == published, "only the published events, some again")
    }

    /// Stored time of stream message `sequence`, as a consumer started by sequence sees it.
    static func storedTime(_ fleet: Fleet, _ sequence: UInt64) throws -> Date? {
        let connection = try fleet.server.connect()
        defer { connection.close() }
        let reader = try connection.reader(stream: "JUICEMAKER", filter: "juicemaker.>", start: .all)
        defer { reader.stop() }
        while let message = try reader.next(timeout: 5) {
            if message.metadata?.streamSequence == sequence { return message.metadata?.stored }
        }
        return nil
    }

    @Test(.timeLimit(.minutes(2)))
    func aRewindWhileADelivererReadsIsRefusedAndChangesNothing() async throws {
        let fleet = try await Fleet.started()
        defer { fleet.stop() }
        let published = try await fleet.publish(2)
        let follower = try await fleet.follow(1, until: published)[0]
        defer { terminate(follower) }
        // Everything delivered is acknowledged first: the floor stands still from then on.
        #expect(await eventually(within: .seconds(30)) { (try? fleet.consumer())??.lag == 0 })
        let floor = try fleet.consumer()?.ackFloor
        let rewind = try await fleet.central.running(["subscribers", "rewind", "central-hook@fleet", "--to", "1"])
        #expect(rewind.status == 75, "\(rewind.stdout)\(rewind.stderr)")
        #expect(rewind.stderr.contains("is being read by a juice fleet deliver"), "\(rewind.stderr)")
        #expect(try fleet.consumer()?.ackFloor == floor, "the consumer is as it was")
        #expect(fleet.received.count == published.count)
    }

    @Test(.timeLimit(.minutes(2)))
    func badTargetsAndUnknownNamesAreOneLineEach() async throws {
        let fleet = try await Fleet.started()
        defer { fleet.stop() }
        _ = try await fleet.publish(1)
        let unknown = try await fleet.central.running(["subscribers", "rewind", "nobody@fleet", "--to", "1"])
        #expect(unknown.status == 65 && unknown.stderr.split(separator: "\n").count == 1, "\(unknown.stderr)")
        let bad = try await fleet.central.running(["subscribers", "rewind", "central-hook@fleet", "--to", "yesterday-ish"])
        #expect(bad.status == 65 && bad.stderr.split(separator: "\n").count == 1, "\(bad.stderr)")
    }

    /// A stream whose limits dropped its first messages: a rewind to before where its
    /// history starts is refused with one line saying where, and changes nothing.
    @Test(.timeLimit(.minutes(2)))
    func aRewindBeforeTheStreamsHistoryIsRefused() async throws {
        let fleet = try await Fleet.started()
        defer { fleet.stop() }
        let connection = try fleet.server.connect()
        defer { connection.close() }
        // Room for a few messages only: the oldest go as new ones come.
        try connection.ensureStream("JUICEMAKER", subjects: "juicemaker.>", replicas: 1, retention: StreamRetention(maxBytes: 2_000))
        _ = try await fleet.publish(3)
        let first = try #require(try connection.stream("JUICEMAKER")?.firstSequence)
        #expect(first > 1, "the stream dropped its first messages")
        #expect(try await fleet.central.running(["fleet", "deliver"]).status == 0, "\(fleet.central.errors)")
        let consumer = try #require(try fleet.consumer())
        for target in ["1", "2000-01-01"] {
            let rewind = try await fleet.central.running(["subscribers", "rewind", "central-hook@fleet", "--to", target])
            #expect(rewind.status == 65, "\(rewind.stdout)\(rewind.stderr)")
            let lines = rewind.stderr.split(separator: "\n")
            #expect(lines.count == 1 && lines[0].contains("history starts at stream sequence \(first)"), "\(rewind.stderr)")
            let now = try #require(try fleet.consumer())
            #expect(now.ackFloor == consumer.ackFloor && now.pending == consumer.pending, "the consumer is as it was")
        }
    }
}
