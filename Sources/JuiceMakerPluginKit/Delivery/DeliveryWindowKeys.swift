import JuiceJSON
import JuiceMakerCore

/// A journal whose events can be acknowledged one by one, out of order, besides the
/// cursor over their contiguous prefix (a JetStream consumer: each message has its
/// own ack). A windowed runner acknowledges each event as soon as it is delivered or
/// given up on, so what a crash sends again is only what was unanswered.
package protocol EventAcknowledgingJournal: DeliveryJournal {
    /// `sequence` is done with for `subscriber`: it is not offered again, even before
    /// the cursor passes it.
    func acknowledge(_ sequence: Int64, for subscriber: String)
}

/// `journal`, or the journal behind a plugin's view of it, when its events are
/// acknowledged one by one: what a runner acknowledges each event to.
package func acknowledgingJournal(_ journal: any EventJournal) -> (any EventAcknowledgingJournal)? {
    (journal as? JournalView)?.acknowledging ?? journal as? any EventAcknowledgingJournal
}

extension ConfigurationKey {
    /// Requests in flight unless `maxInFlight` says otherwise. 16 keeps a subscriber
    /// above 300 events/s at 50 ms per answer while asking no more of a receiver than
    /// a browser's handful of connections per host times three, and bounds what a
    /// crash sends again to 16 events.
    package static let defaultMaxInFlight = 16

    /// The `maxInFlight` key a windowed durable plugin declares.
    public static let maxInFlight = ConfigurationKey(
        "maxInFlight", .integer(1...256), default: .number(Double(defaultMaxInFlight)),
        description:
            "Requests out at once, each on a kept connection of its own; 1 delivers one at a time, in journal order. A crash sends at most this many events again."
    )

    /// The `ordered` key a windowed durable plugin declares.
    public static let ordered = ConfigurationKey(
        "ordered", .boolean, default: .bool(false),
        description:
            "true delivers in journal order whatever maxInFlight says: one request at a time, so at most one event per round trip (20/s at 50 ms).")
}

extension PluginConfiguration {
    /// The window a subscriber asked for: `maxInFlight` (default 16), or 1 with `ordered: true`.
    public func deliveryWindow() throws(ConfigurationError) -> Int {
        if try bool(.ordered) == true { return 1 }
        return Int(try number(.maxInFlight) ?? Double(ConfigurationKey.defaultMaxInFlight))
    }
}
