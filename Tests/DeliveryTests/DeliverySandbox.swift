import Foundation
import JuiceTestSupport

extension JuiceSandbox {
    /// A sandbox for delivery: its config has `subscribers` (the config's array as
    /// JSON text), `flushDeadlineSeconds`, `backgroundDelivery` and stock for many
    /// orders; every run names the config, the store (`--store`) and `--quiet`.
    static func delivery(subscribers: String, flushDeadlineSeconds: Double = 2, backgroundDelivery: Bool = true) throws -> JuiceSandbox {
        try JuiceSandbox(
            language: "C",
            config: deliveryConfig(subscribers: subscribers, flushDeadlineSeconds: flushDeadlineSeconds, backgroundDelivery: backgroundDelivery),
            store: .argument, storeFile: "juice.db", arguments: ["--quiet"])
    }

    /// Another config in the sandbox (for `run(_:config:)`); returns its path.
    func config(_ name: String, subscribers: String, flushDeadlineSeconds: Double = 2) throws -> String {
        try write(Self.deliveryConfig(subscribers: subscribers, flushDeadlineSeconds: flushDeadlineSeconds, backgroundDelivery: true), to: name)
    }

    private static func deliveryConfig(subscribers: String, flushDeadlineSeconds: Double, backgroundDelivery: Bool) -> String {
        #"{"initialStock": 100000, "flushDeadlineSeconds": \#(flushDeadlineSeconds), "backgroundDelivery": \#(backgroundDelivery), "#
            + #""subscribers": \#(subscribers)}"#
    }

    /// The sequences of every event in the store's journal, through `juice events --json`.
    func journalSequences() throws -> [Int64] {
        try events().map(\.sequence)
    }

    /// The ids of the store's juiceMade events, through `juice events --json`.
    func juiceMadeIDs() throws -> [String] {
        try events(["--type", "juiceMade"]).map { $0.id.description }
    }

    /// `juice subscribers --json`: one row per subscriber.
    func subscriberRows() throws -> [[String: Any]] {
        try run(["subscribers", "--json"]).json() as? [[String: Any]] ?? []
    }
}
