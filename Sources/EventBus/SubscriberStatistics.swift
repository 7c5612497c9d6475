/// Counters for one subscriber, read at one moment.
public struct SubscriberStatistics: Sendable, Equatable {
    /// The subscriber's name.
    public let name: String
    /// How it receives events.
    public let delivery: Delivery
    /// Events its handler returned from normally.
    public let delivered: Int
    /// Events its handler threw on.
    public let failed: Int
    /// Events its mailbox discarded because it was full (always 0 for synchronous).
    public let dropped: Int
    /// Events accepted and not yet handled (always 0 for synchronous).
    public let queued: Int

    public init(name: String, delivery: Delivery, delivered: Int, failed: Int, dropped: Int, queued: Int) {
        self.name = name
        self.delivery = delivery
        self.delivered = delivered
        self.failed = failed
        self.dropped = dropped
        self.queued = queued
    }
}
