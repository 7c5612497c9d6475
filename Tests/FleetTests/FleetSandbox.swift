import Foundation
import JuiceTestSupport
import Testing

extension JuiceSandbox {
    /// A `juice` machine of the fleet: its config names the machine, stock for many
    /// orders, the store (`juice.db` beside the config, through `store.path`) and
    /// `subscribers`; `extra` is more top-level config members as JSON text
    /// (`"fleet": {…}`).
    static func fleetMachine(_ machine: String, subscribers: String, extra: String = "", flushDeadlineSeconds: Double = 1) throws -> JuiceSandbox {
        let more = extra.isEmpty ? "" : ", \(extra)"
        let config =
            #"{"machine": "\#(machine)", "initialStock": 100000, "flushDeadlineSeconds": \#(flushDeadlineSeconds), "store": {"path": "juice.db"}, "subscribers": \#(subscribers)\#(more)}"#
        return try JuiceSandbox(
            name: machine, language: "C", config: config, store: .config, storeFile: "juice.db", environment: ["NO_COLOR": "1"])
    }
}

extension JuiceSandbox {
    /// A machine that publishes to `server`, after it made and published `orders`.
    static func publishing(_ machine: String, to server: NATSServerProcess, orders: [String] = ["kiwi"]) async throws -> JuiceSandbox {
        let made = try fleetMachine(machine, subscribers: FleetIntegrationTests.natsSubscriber(server.url))
        for juice in orders { #expect(try await made.running(["order", juice]).status == 0) }
        #expect(try await made.running(["deliver"]).status == 0, "\(made.errors)")
        return made
    }
}
