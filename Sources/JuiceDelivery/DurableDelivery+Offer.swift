import Dispatch
import JuiceMakerCore
import JuiceMakerPluginKit
import Locking

/// How the runner hands events to its destination (see `DurableDelivery`): one alone,
/// waited for on the runner's thread, or in runs to a pipelined destination.
extension DurableDelivery {
    /// Offers the events of `run` that the kinds filter lets through to a pipelined
    /// destination in one call, and keeps the books as it accepts them: the cursor is
    /// written every `cursorBatch` accepted events (`unrecorded` counts them).
    ///
    /// Returns how many events of `run`, from its start, are done with (accepted, or
    /// passed over by the filter before the next offered one), and the failure that
    /// stopped the destination: it failed on `run[run.startIndex + handled]`. Fewer
    /// than `run.count` without a failure: shutdown stopped it.
    func deliver(
        _ run: ArraySlice<CommittedEvent>, upcoming: ArraySlice<CommittedEvent>, unrecorded: inout Int
    ) -> (handled: Int, failure: DeliveryFailure?) {
        // Where each offered event is in `run`, counted from its start (nil: all are offered).
        let positions: [Int]? = kinds.map { kinds in
            (0..<run.count).filter { kinds.contains(run[run.startIndex + $0].envelope.event.kind) }
        }
        let offered = positions.map { ArraySlice($0.map { run[run.startIndex + $0] }) } ?? run
        /// Done with once `count` offered events are accepted: everything before the next offered one.
        @Sendable func handled(after count: Int) -> Int {
            count == offered.count ? run.count : positions?[count] ?? count
        }
        let books = Locked(RunBooks(unrecorded: unrecorded))
        /// Moves the books (`handledUpTo`, the statistics) up to what is accepted now.
        @Sendable func book(failed: Bool) {
            let (accepted, booked) = books.withLock { ($0.accepted, $0.booked) }
            let done = handled(after: accepted)
            let delivered = accepted - booked.accepted
            let skipped = (done - accepted) - (booked.handled - booked.accepted)
            let sequence = done > 0 ? run[run.startIndex + done - 1].envelope.sequence : nil
            progress { state in
                if let sequence { state.handledUpTo = max(state.handledUpTo, sequence) }
                state.statistics.delivered += delivered
                state.statistics.attempts += delivered + (failed ? 1 : 0)
                state.statistics.skipped += skipped
            }
            books.withLock { $0.booked = (accepted, done) }
        }
        let cursorBatch = cursorBatch
        destination.send(
            DeliveryOffer(offered, upcoming: upcoming) { [self] position, failure in
                let due = books.withLock { books -> Bool in
                    if let failure {
                        if books.failure == nil { books.failure = failure }
                        return false
                    }
                    guard books.failure == nil, position == books.accepted else { return false }
                    books.accepted = position + 1
                    books.unrecorded += 1
                    return books.unrecorded >= cursorBatch
                }
                if due {
                    book(failed: false)
                    persistCursor()
                    books.withLock { $0.unrecorded = 0 }
                }
                return !isStopping
            })
        let (accepted, failure, left) = books.withLock { ($0.accepted, $0.failure, $0.unrecorded) }
        unrecorded = left
        book(failed: failure != nil)
        return (handled(after: accepted), failure)
    }

    /// The event of a readable journal row.
    static func readableEvent(_ entry: CommittedEntry) -> CommittedEvent? {
        if case .event(let envelope) = entry { envelope } else { nil }
    }

    /// Offers `envelope` alone and waits on this thread for its answer (shutdown cancels
    /// the send); the failure, if it failed.
    func attempt(_ envelope: EventEnvelope) -> DeliveryFailure? {
        let outcome = Locked<DeliveryFailure?>(nil)
        let done = DispatchSemaphore(value: 0)
        update { $0.currentSequence = envelope.sequence }
        destination.send(
            DeliveryOffer([CommittedEvent(envelope, text: nil)]) { [state] _, failure in
                outcome.withLock { $0 = failure }
                done.signal()
                return !state.withLock { $0.stopping }
            })
        // A shutdown that began before the send could not cancel it: cancel it now.
        if isStopping { destination.cancelSends() }
        done.wait()
        update { $0.currentSequence = nil }
        return outcome.withLock { $0 }
    }
}

/// What a pipelined run has accepted so far. Its answers come on the runner's own
/// thread, before `send` returns; the lock keeps that a checked promise, not a guess.
struct RunBooks: Sendable {
    var accepted = 0
    var booked = (accepted: 0, handled: 0)
    var unrecorded: Int
    var failure: DeliveryFailure?
}
