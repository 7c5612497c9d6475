import JuiceMakerCore

/// A log level, with the names and order of swift-log's `Logger.Level`.
package enum LogLevel: String, Sendable, CaseIterable, Comparable {
    /// The finest detail; no event is logged this low, so it means "everything".
    case trace
    /// Detail for finding a fault; logs everything, as `trace` does.
    case debug
    /// Routine facts: stock changes and everything above.
    case info
    /// Normal but significant: juices made and everything above.
    case notice
    /// Something did not happen as asked: failed orders.
    case warning
    /// Faults; no event is logged this high, so it logs nothing.
    case error
    /// The most severe; logs nothing, as `error` does.
    case critical

    /// The level each kind of event is logged at.
    ///
    /// - `stockChanged` → `info`: the default level keeps the log a complete record
    ///   of every change; `notice` hides stock lines and keeps orders.
    /// - `juiceMade` → `notice`: the normal, interesting outcome.
    /// - `orderFailed` → `warning`: the order did not happen; a person may act on it.
    package init(of kind: EventKind) {
        switch kind {
        case .stockChanged: self = .info
        case .juiceMade: self = .notice
        case .orderFailed: self = .warning
        }
    }

    /// The event kinds logged at `self` or above.
    package var kindsAtOrAbove: Set<EventKind> {
        Set(EventKind.allCases.filter { LogLevel(of: $0) >= self })
    }

    private var rank: Int {
        switch self {
        case .trace: 0
        case .debug: 1
        case .info: 2
        case .notice: 3
        case .warning: 4
        case .error: 5
        case .critical: 6
        }
    }

    /// Whether `lhs` is less severe than `rhs`.
    package static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rank < rhs.rank }
}
