import Foundation
import JuiceTestSupport
import Testing
import NATSClient

/// A deliverer whose server goes away says so in one line, and in one more when it is
/// back (with how long it was away), and delivers what came meanwhile.
@Suite(.tags(.nats, .process, .slow), .notInUnitRun, .requiresNATS, .serialized)
struct FleetConnectionLossTests {
    @Test(.timeLimit(.minutes(2)))
    func aServerRestartIsSaidWhenLostAndWhenBack() async throws {
        let fleet = try await FleetConsumerLifetimeTests.Fleet.started()
        defer { fleet.stop() }
        let first = try await fleet.publish(2)
        let follower = try await fleet.follow(1, until: first)[0]
        defer { terminate(follower) }
        func lines(_ text: String) -> [Substring] { fleet.central.errors.split(separator: "\n").filter { $0.contains(text) } }

        await fleet.server.halt()
        #expect(await eventually(within: .seconds(20)) { !lines("lost the connection to").isEmpty }, "\(fleet.central.errors)")
        try await fleet.server.start()
        #expect(await eventually(within: .seconds(20)) { !lines("connected again to").isEmpty }, "\(fleet.central.errors)")
        let later = try await fleet.publish(2)
        let arrived = await eventually(within: .seconds(30)) { later.isSubset(of: Set(fleet.received)) }
        #expect(arrived, "\(fleet.central.errors)")
        #expect(fleet.received.count == first.count + later.count, "\(fleet.central.errors)")
        #expect(lines("lost the connection to").count == 1, "\(fleet.central.errors)")
        let back = lines("connected again to")
        #expect(back.count == 1 && back[0].contains(" s away"), "\(fleet.central.errors)")
        #expect(follower.isRunning)
    }
}
