import Foundation
import JuiceTestSupport
import Testing
#if canImport(NATSPlugin)
import NATSPlugin

/// What a published message looks like to other NATS clients, against a real `nats-server -js`.
@Suite(.enabled(if: FleetEnvironment.isAvailable, FleetEnvironment.skipNote), .serialized)
struct FleetWireTests {
    /// The CloudEvents NATS and JetStream bindings (cloudevents/sdk-go's among them)
    /// read the header `content-type`, and NATS headers are case-sensitive (ADR-4): a
    /// lookup by that exact name must find it, as theirs does.
    @Test(.timeLimit(.minutes(1)))
    func theContentTypeHeaderIsNamedAsTheCloudEventsBindingReadsIt() async throws {
        let directory = try TemporaryDirectory(prefix: "juice-fleet-")
        let server = try NATSServerProcess(directory: directory)
        try await server.start()
        defer { server.stop() }
        let machine = try FleetMachine("shop-a", subscribers: FleetIntegrationTests.natsSubscriber(server.url))
        #expect(try await machine.run(["order", "kiwi"]).status == 0)
        #expect(try await machine.run(["deliver"]).status == 0, "\(machine.errors)")
        let ids = try await machine.eventIDs()
        let connection = try NATSConnection(NATSOptions(servers: [server.url], timeout: 5, reconnects: false, name: "test"))
        defer { connection.close() }
        for sequence in 1...UInt64(ids.count) {
            let message = try #require(try connection.message(at: sequence, of: "JUICEMAKER"))
            #expect(message.header("content-type") == "application/cloudevents+json")
            #expect(message.header("Content-Type") == nil, "one content type, under the binding's name")
            let id = try #require(message.header("Nats-Msg-Id"))
            #expect(ids.contains(id) && message.text.contains("\"id\":\"\(id)\""))
        }
    }
}
#endif
