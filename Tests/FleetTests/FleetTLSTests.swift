import Foundation
import JuiceTestSupport
import Testing
#if canImport(NATSClient)
import NATSClient

/// `tls://` means TLS: a server that offers none is refused, never used in plain text.
@Suite(.tags(.nats, .process, .slow), .notInUnitRun, .enabled(if: FleetEnvironment.isAvailable, FleetEnvironment.skipNote), .serialized)
struct FleetTLSTests {
    @Test(.timeLimit(.minutes(1)))
    func aTLSURLRefusesAPlainServer() async throws {
        let server = try await NATSServerProcess.started()
        defer { server.stop() }
        _ = try await JuiceSandbox.publishing("shop-a", to: server)
        let tls = "tls://127.0.0.1:\(server.port)"
        let central = try JuiceSandbox.fleetMachine(
            "central", subscribers: #"[{"type": "webhook", "name": "hook", "url": "http://127.0.0.1:1/"}]"#,
            extra: #""fleet": {"url": "\#(tls)", "timeoutSeconds": 2}"#)
        for command in [["fleet", "stock"], ["fleet", "deliver"], ["fleet", "stock", "--nats", tls]] {
            let run = try await central.running(command)
            #expect(run.status == 78, "\(command): \(run.stderr)")
            let lines = run.stderr.split(separator: "\n")
            #expect(lines.count == 1 && lines[0].contains("offers no TLS"), "\(command): \(run.stderr)")
            #expect(run.stdout.isEmpty, "\(command): \(run.stdout)")
        }
        // A machine publishing to it: nothing goes out in plain text, and the subscriber stops with the reason.
        let machine = try JuiceSandbox.fleetMachine("shop-b", subscribers: FleetIntegrationTests.natsSubscriber(tls, retries: 1))
        #expect(try await machine.running(["order", "kiwi"]).status == 0)
        _ = try await machine.running(["deliver"])
        let rows = try await machine.running(["subscribers", "--json"]).stdout
        #expect(rows.contains("offers no TLS"), "\(rows)")
        let connection = try server.connect()
        defer { connection.close() }
        #expect(try connection.streamMessageCount("JUICEMAKER") == 2, "only shop-a's kiwi and its juice")
    }
}
#endif
