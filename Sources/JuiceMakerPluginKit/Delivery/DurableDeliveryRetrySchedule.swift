import JuiceJSON
import JuicePrimitives

/// When a durable subscriber tries a failed event again.
///
/// The first attempt is immediate; after the n-th failed attempt the next waits
/// `delays[n-1]` seconds, spread by up to ±`jitter` of itself so that many
/// subscribers failing together do not retry together. After `delays.count + 1`
/// failed attempts the event becomes a dead letter.
public struct RetrySchedule: Sendable, Equatable {
    /// After the immediate try: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h (about 27.6 hours in all).
    public static let standard = RetrySchedule(delays: [5, 300, 1_800, 7_200, 18_000, 36_000, 36_000])

    /// The longest wait a `Retry-After` answer is allowed to ask for: one day.
    package static let longestRetryAfter = 86_400.0

    /// Seconds to wait after each failed attempt, in order.
    public let delays: [Double]
    /// The fraction (0 to 1) by which each delay may be shortened or lengthened.
    public let jitter: Double

    /// A schedule of `delays` seconds. Negative delays count as 0; `jitter` is clamped to 0…1.
    public init(delays: [Double], jitter: Double = 0.1) {
        self.delays = delays.map { max(0, $0) }
        self.jitter = min(1, max(0, jitter))
    }

    /// Attempts made before giving up, the immediate one included.
    package var maximumAttempts: Int { delays.count + 1 }

    /// Seconds to wait after the `attempt`-th failed attempt (1-based), or `nil` when
    /// that was the last one. A destination's `retryAfter` replaces the scheduled
    /// delay (it is honoured as asked, without jitter, up to `longestRetryAfter`).
    package func delay(afterFailedAttempt attempt: Int, retryAfter: Double? = nil) -> Double? {
        guard attempt >= 1, attempt <= delays.count else { return nil }
        if let retryAfter { return min(max(0, retryAfter), Self.longestRetryAfter) }
        let base = delays[attempt - 1]
        guard jitter > 0, base > 0 else { return base }
        return base * Double.random(in: (1 - jitter)...(1 + jitter))
    }

    /// A wait for a person: "250 ms", "5 s", "30 min", "10 h".
    package static func describe(seconds: Double) -> String {
        switch seconds {
        case ..<1: "\(Int((seconds * 1000).rounded())) ms"
        case ..<120: "\(Int(seconds.rounded())) s"
        case ..<7_200: "\(Int((seconds / 60).rounded())) min"
        default: "\(Int((seconds / 3_600).rounded())) h"
        }
    }

    /// `seconds` as `describe` words it, in both languages ("5 s", "5초").
    package static func message(seconds: Double) -> PluginMessage {
        let english = describe(seconds: seconds)
        let korean =
            switch seconds {
            case ..<1: "\(Int((seconds * 1000).rounded()))밀리초"
            case ..<120: "\(Int(seconds.rounded()))초"
            case ..<7_200: "\(Int((seconds / 60).rounded()))분"
            default: "\(Int((seconds / 3_600).rounded()))시간"
            }
        return PluginMessage(english: english, korean: korean)
    }
}

extension ConfigurationKey {
    /// The longest delay a `retrySchedule` may hold: seven days.
    package static let longestRetryDelay = 604_800.0

    /// The `retrySchedule` key every durable plugin declares: an array of delays in
    /// seconds (0 to 7 days each), e.g. `[0.05, 0.1]` for tests. An empty array means
    /// one attempt, then a dead letter.
    public static let retrySchedule = ConfigurationKey(
        "retrySchedule", .list(.number(minimum: 0, maximum: longestRetryDelay, unit: "seconds")),
        default: .array(RetrySchedule.standard.delays.map { .number($0) }),
        description: "Seconds to wait after each failed attempt (each \u{00B1}10% jitter); after the last, the event becomes a dead letter.")
}

extension PluginConfiguration {
    /// A `retrySchedule` declared as `ConfigurationKey.retrySchedule`.
    public func retrySchedule(_ key: ConfigurationKey) throws(ConfigurationError) -> RetrySchedule? {
        try numbers(key).map { RetrySchedule(delays: $0) }
    }
}
