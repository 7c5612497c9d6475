#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch

/// A `Duration` as whole seconds and nanoseconds: the one conversion from a
/// `Duration` (or a C `timeval`) to what the C, Dispatch and Foundation APIs take
/// (nanoseconds, milliseconds, a `timespec`, a `DispatchTime`, seconds as a `Double`).
///
/// Never negative (a negative duration is zero), and saturated rather than
/// overflowing: a deadline `Duration.seconds(Int64.max)` away, or further, waits
/// "forever"; nothing here traps or wraps.
public struct TimeSpan: Sendable, Equatable {
    /// Whole seconds, 0 or more (`Int.max` when saturated).
    public let seconds: Int
    /// The rest, 0 ..< 1,000,000,000.
    public let nanoseconds: Int

    /// The longest span: every conversion of it saturates.
    public static let forever = TimeSpan(seconds: .max, nanoseconds: 0)

    private init(seconds: Int, nanoseconds: Int) {
        self.seconds = seconds
        self.nanoseconds = nanoseconds
    }

    public init(_ duration: Duration) {
        if duration <= .zero {
            self.init(seconds: 0, nanoseconds: 0)
        } else if duration >= .seconds(Int64.max) {
            // `Duration.components` traps beyond `Int64.max` seconds.
            self = .forever
        } else {
            let (seconds, attoseconds) = duration.components
            self.init(seconds: Int(clamping: seconds), nanoseconds: Int(max(0, attoseconds) / 1_000_000_000))
        }
    }

    /// A C `timeval` (a `getrusage` time, say); a negative one is zero.
    public init(_ time: timeval) {
        let microseconds = Int(time.tv_usec)
        if time.tv_sec < 0 || (time.tv_sec == 0 && microseconds <= 0) {
            self.init(seconds: 0, nanoseconds: 0)
        } else {
            self.init(seconds: Int(time.tv_sec), nanoseconds: min(max(0, microseconds), 999_999) * 1_000)
        }
    }

    /// The whole span in nanoseconds, `Int.max` when it does not fit.
    public var totalNanoseconds: Int {
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return .max }
        let (sum, overflowed) = scaled.addingReportingOverflow(nanoseconds)
        return overflowed ? .max : sum
    }

    /// The whole span in milliseconds, a part of one counting as one (a `poll(2)`
    /// timeout that never wakes before the span has passed); `Int.max` when it does
    /// not fit.
    public var millisecondsRoundedUp: Int {
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000)
        if overflow { return .max }
        let (sum, overflowed) = scaled.addingReportingOverflow((nanoseconds + 999_999) / 1_000_000)
        return overflowed ? .max : sum
    }

    /// The span in seconds, as a `Double` (finite: about 9.2e18 at the most).
    public var totalSeconds: Double {
        Double(seconds) + Double(nanoseconds) / 1e9
    }

    /// The span as a relative `timespec` (`pthread_cond_timedwait_relative_np`).
    public var relativeTimespec: timespec {
        timespec(tv_sec: seconds, tv_nsec: nanoseconds)
    }

    /// `now` plus the span, as an absolute `timespec` (`pthread_cond_timedwait` on
    /// the clock `now` was read from); the furthest `timespec` when it does not fit.
    public func deadline(after now: timespec) -> timespec {
        // Both nanosecond parts are below 10⁹: their sum cannot overflow.
        let (carry, rest) = (Int(now.tv_nsec) + nanoseconds).quotientAndRemainder(dividingBy: 1_000_000_000)
        let (partial, overflow) = Int(now.tv_sec).addingReportingOverflow(seconds)
        let (sum, overflowed) = partial.addingReportingOverflow(carry)
        if overflow || overflowed { return timespec(tv_sec: .max, tv_nsec: 999_999_999) }
        return timespec(tv_sec: sum, tv_nsec: rest)
    }

    /// `now` plus the span (`DispatchGroup.wait`, `asyncAfter`);
    /// `DispatchTime.distantFuture` when it does not fit.
    public func deadline(after now: DispatchTime) -> DispatchTime {
        let nanoseconds = totalNanoseconds
        if nanoseconds == .max { return .distantFuture }
        // `dispatch_time` itself answers "forever" when the sum overflows.
        return now + .nanoseconds(nanoseconds)
    }
}
