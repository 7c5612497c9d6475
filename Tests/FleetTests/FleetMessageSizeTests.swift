import Foundation
import JuiceTestSupport
import Testing
import NATSClient

/// A message larger than `fleet.maxMessageBytes` is refused unread: skipped by the
/// readers, a dead letter for `juice fleet deliver`, one line each.
@Suite(.tags(.nats, .process, .slow), .notInUnitRun, .requiresNATS, .serialized)
struct FleetMessageSizeTests {
    /// The stream's first message with another event id (its last digit the `copy`th
    /// other one; in its body and `Nats-Msg-Id`), its JSON padded with `padding` spaces:
    /// a valid event of that size, published.
    static func publishCopy(of connection: NATSConnection, _ copy: Int, padding: Int) throws -> String {
        let original = try #require(try connection.message(at: 1, of: "JUICEMAKER"))
        let id = try #require(original.header("Nats-Msg-Id"))
        let digits = ["1", "2", "3"].filter { Character($0) != id.last }
        let copy = String(id.dropLast()) + digits[copy]
        let body = "{" + String(repeating: " ", count: padding) + original.text.replacingOccurrences(of: id, with: copy).dropFirst()
        try connection.publish(
            subject: original.subject, body: Array(body.utf8), headers: [("content-type", "application/cloudevents+json")], messageID: copy)
        return copy
    }

    @Test(.timeLimit(.minutes(1)))
    func aMessageAboveTheBoundIsRefusedAndKeptAsADeadLetter() async throws {
        let fleet = try await FleetConsumerLifetimeTests.Fleet.started()
        defer { fleet.stop() }
        let ids = try await fleet.publish(1)
        let connection = try fleet.server.connect()
        defer { connection.close() }
        // The same event padded a little (taken) and past 64 KiB, the default bound (refused).
        let small = try Self.publishCopy(of: connection, 0, padding: 100)
        let large = try Self.publishCopy(of: connection, 1, padding: 70_000)
        let central = fleet.central
        let run = try await central.running(["fleet", "deliver"])
        #expect(run.status == 0, "\(run.stderr)")
        let delivered = fleet.received
        #expect(Set(delivered) == ids.union([small]) && delivered.count == ids.count + 1, "\(run.stderr)")
        #expect(!delivered.contains(large))
        let lines = run.stderr.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].contains("above fleet.maxMessageBytes 65536"), "\(run.stderr)")
        #expect(try await FleetDeadLetterTests.fleetItem(central)?["deadLetters"] as? Int == 1)
        // A reader skips it with one line too.
        let metrics = try await central.running(["fleet", "metrics"])
        #expect(metrics.status == 0, "\(metrics.stderr)")
        let skipped = metrics.stderr.split(separator: "\n")
        #expect(skipped.count == 1 && skipped[0].contains("above fleet.maxMessageBytes 65536"), "\(metrics.stderr)")
    }
}
