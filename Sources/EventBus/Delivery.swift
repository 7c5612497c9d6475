/// How a subscriber receives events: the NotificationCenter-versus-mailbox choice,
/// made per subscriber.
public enum Delivery: Sendable, Equatable {
    /// The handler runs inside `publish`, on the publisher's thread, in subscription
    /// order, before `publish` returns. Cheapest and ordered, but a slow handler slows
    /// the publisher (NotificationCenter's behaviour).
    case synchronous

    /// Events go to the subscriber's own bounded FIFO mailbox, drained on its own
    /// serial execution context. The publisher never waits for the handler.
    ///
    /// `capacity` bounds the events accepted and not yet handled (waiting in the
    /// mailbox plus the ones being handled). When it is reached, `whenFull` decides
    /// which event is discarded; every discarded event is counted in `dropped`.
    case queued(capacity: Int = 1024, whenFull: OverflowPolicy = .dropOldest)
}

/// What a full mailbox discards.
public enum OverflowPolicy: Sendable, Equatable {
    /// Discard the oldest event still waiting, keep the new one. Events the drain
    /// has already taken (it takes everything waiting at once, then handles it) are
    /// not "waiting"; when every outstanding event has been taken, the new event is
    /// discarded instead, as `dropNewest` would.
    case dropOldest
    /// Discard the new event, keep what is already waiting.
    case dropNewest
}
