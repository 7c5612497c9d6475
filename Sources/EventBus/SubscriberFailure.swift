/// A handler threw. Reported to the bus's error sink; the bus carries on.
public struct SubscriberFailure: Error, Sendable {
    /// The name the subscriber gave when it subscribed.
    public let subscriber: String
    /// What the handler threw.
    public let error: any Error

    @inlinable
    public init(subscriber: String, error: any Error) {
        self.subscriber = subscriber
        self.error = error
    }
}
