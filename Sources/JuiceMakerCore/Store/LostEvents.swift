/// Events a recovery could not save, by durable subscriber that had not been sent
/// them yet: kept until a person acknowledges them, so a loss is said, never skipped
/// in silence.
package struct LostEvents: Sendable, Equatable {
    package let subscriber: String
    /// The sequences gone (they will never be delivered).
    package let sequences: ClosedRange<Int64>
    /// When the recovery that found them ran (seconds since 1970).
    package let recoveredAt: Double

    package init(subscriber: String, sequences: ClosedRange<Int64>, recoveredAt: Double) {
        self.subscriber = subscriber
        self.sequences = sequences
        self.recoveredAt = recoveredAt
    }
}
