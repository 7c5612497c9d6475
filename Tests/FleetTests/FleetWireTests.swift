import Foundation
import JuiceTestSupport
import Testing
import NATSClient

/// What a published message looks like to other NATS clients, against a real `nats-server -js`.
@Suite(.tags(.nats, .process), .notInUnitRun, .requiresNATS, .serialized)
struct FleetWireTests {
    /// The CloudEvents NATS and JetStream bindings (cloudevents/sdk-go's among them)
    /// read the header `content-type`, and NATS headers are case-sensitive (ADR-4): a
    /// lookup by that exact name must find it, as theirs does.
    @Test(.timeLimit(.minutes(1)))
    func theContentTypeHeaderIsNamedAsTheCloudEventsBindingReadsIt() async throws {
        let server = try await NATSServerProcess.started()
        defer { server.stop() }
        let machine = try await JuiceSandbox.publishing("shop-a", to: server)
        let ids = try await machine.eventIDs()
        let connection = try server.connect()
        defer { connection.close() }
        for sequence in 1...UInt64(ids.count) {
            let message = try #require(try connection.message(at: sequence, of: "JUICEMAKER"))
            #expect(message.header("content-type") == "application/cloudevents+json")
            #expect(message.header("Content-Type") == nil, "one content type, under the binding's name")
            let id = try #require(message.header("Nats-Msg-Id"))
            #expect(ids.contains(id) && message.text.contains("\"id\":\"\(id)\""))
        }
    }

    /// `maxAge`, `maxBytes` and `discard` set the stream's limits when it is created and
    /// bring an existing stream to them; `fleet stock` says what they mean for it.
    @Test(.timeLimit(.minutes(1)))
    func retentionIsTheOperatorsToSet() async throws {
        let server = try await NATSServerProcess.started()
        defer { server.stop() }
        func machine(_ limits: String) throws -> JuiceSandbox {
            try JuiceSandbox.fleetMachine(
                "shop-a", subscribers: #"[{"type": "nats", "url": "\#(server.url)", \#(limits)}]"#,
                extra: #""fleet": {"url": "\#(server.url)"}"#)
        }
        let connection = try server.connect()
        defer { connection.close() }
        let first = try machine(#""maxAge": 604800, "maxBytes": 10000000, "discard": "new""#)
        #expect(try await first.running(["stock", "add", "kiwi", "1"]).status == 0)
        #expect(try await first.running(["deliver"]).status == 0, "\(first.errors)")
        var stream = try #require(try connection.stream("JUICEMAKER"))
        #expect(stream.maxAge == 604800 && stream.maxBytes == 10_000_000 && stream.discard == .new, "\(stream)")
        let table = try await first.running(["fleet", "stock"]).stdout
        #expect(table.contains("JUICEMAKER keeps messages for 7d, up to 10000000 bytes"), "\(table)")
        // An existing stream is brought to the limits the config sets; those it does not set stay.
        let second = try machine(#""maxAge": 3600"#)
        #expect(try await second.running(["stock", "add", "kiwi", "1"]).status == 0)
        #expect(try await second.running(["deliver"]).status == 0, "\(second.errors)")
        stream = try #require(try connection.stream("JUICEMAKER"))
        #expect(stream.maxAge == 3600 && stream.maxBytes == 10_000_000 && stream.discard == .new, "\(stream)")
        #expect(try await second.running(["config", "check"]).status == 0)
        let bad = try machine(#""discard": "oldest""#)
        #expect(try await bad.running(["config", "check"]).status == 78)
    }
}
