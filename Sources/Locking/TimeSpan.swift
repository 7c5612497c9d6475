/// A `Duration` as whole seconds and nanoseconds, for the C and Dispatch APIs that
/// take them: never negative, and saturated rather than overflowing (a deadline
/// `Duration.seconds(Int64.max)` away waits "forever", it does not wrap).
public struct TimeSpan: Sendable, Equatable {
    /// Whole seconds, 0 or more.
    public let seconds: Int
    /// The rest, 0 ..< 1,000,000,000.
    public let nanoseconds: Int

    public init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        if seconds < 0 || (seconds == 0 && attoseconds <= 0) {
            self.seconds = 0
            self.nanoseconds = 0
        } else {
            self.seconds = Int(clamping: seconds)
            self.nanoseconds = Int(max(0, attoseconds) / 1_000_000_000)
        }
    }

    /// The whole span in nanoseconds, `Int.max` when it does not fit.
    public var totalNanoseconds: Int {
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return .max }
        let (sum, overflowed) = scaled.addingReportingOverflow(nanoseconds)
        return overflowed ? .max : sum
    }
}
