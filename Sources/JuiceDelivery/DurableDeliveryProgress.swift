import JuiceMakerCore
import JuiceMakerPluginKit

/// What a durable subscriber's runner is doing now.
package enum DeliveryPhase: Sendable, Equatable {
    /// Not started, or starting its first pass over the journal.
    case starting
    /// Handing events over.
    case delivering
    /// Every event in the journal up to now is handled.
    case caughtUp
    /// The oldest undelivered event failed; its next attempt is due at this Unix time.
    case waitingForRetry(until: Double)
    /// The destination refused for good; nothing is delivered until
    /// `juice subscribers retry` re-enables it.
    case disabled(reason: String)
    /// Another runner (in this or another process) holds the subscriber's delivery
    /// lease and delivers its events; this one waits its turn.
    case leftToAnotherRunner
    /// `shutdown` has run.
    case stopped
}

/// Counts of what one runner did in this process.
package struct DeliveryStatistics: Sendable, Equatable {
    /// Calls to the destination, successful or not.
    package var attempts = 0
    /// Events handed over.
    package var delivered = 0
    /// Attempts that failed.
    package var failed = 0
    /// Events given up on and recorded as dead letters.
    package var deadLettered = 0
    /// Events passed over by the subscriber's `events` filter.
    package var skipped = 0
    /// Dead letters redelivered by `retry(deadLetters: true)`.
    package var redelivered = 0

    package init() {}
}

/// A durable subscriber's standing in the journal, read without running it
/// (what `juice subscribers` shows).
package struct DurableSubscriberStatus: Sendable, Equatable {
    /// The subscriber's name.
    package let name: String
    /// The last journal sequence it has handled.
    package let cursor: Int64
    /// Journal events after the cursor (some may be outside its `events` filter).
    package let lag: Int64
    /// The oldest undelivered event's attempts and next attempt, if it failed.
    package let retry: DeliveryRetryState?
    /// Dead letters waiting for `juice subscribers retry <name> --dead-letters`.
    package let deadLetters: Int

    package init(name: String, cursor: Int64, lag: Int64, retry: DeliveryRetryState?, deadLetters: Int) {
        self.name = name
        self.cursor = cursor
        self.lag = lag
        self.retry = retry
        self.deadLetters = deadLetters
    }

    /// Reads `name`'s standing from `journal`.
    package static func read(_ name: String, from journal: any DeliveryJournal) throws(StoreError) -> DurableSubscriberStatus {
        let cursor = try journal.cursor(named: name)
        let last = try journal.lastSequence()
        let retry = try retryState(name, after: cursor, from: journal)
        return DurableSubscriberStatus(
            name: name, cursor: cursor, lag: max(0, last - cursor), retry: retry,
            deadLetters: try journal.deadLetters(for: name).count)
    }

    /// `name`'s retry state if it is for an event after `cursor` (the oldest one not
    /// handled); one left behind by a delivery the cursor has since passed is stale.
    package static func retryState(_ name: String, after cursor: Int64, from journal: any DeliveryJournal) throws(StoreError) -> DeliveryRetryState? {
        guard let state = try journal.retryState(for: name), state.sequence > cursor else { return nil }
        return state
    }
}
