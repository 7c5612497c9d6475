import Dispatch
import JuiceMakerCore
import Locking

/// How the runner hands events to its destination (see `DurableDelivery`): one at a
/// time to a task, or in runs to a `BlockingDurableDestination` on its own thread.
extension DurableDelivery {
    /// Offers the events of `run` that the kinds filter lets through to a blocking
    /// destination in one call, and keeps the books as it accepts them: the cursor is
    /// written every `cursorBatch` accepted events (`unrecorded` counts them).
    ///
    /// Returns how many events of `run`, from its start, are done with (accepted, or
    /// passed over by the filter before the next offered one), and the failure that
    /// stopped the destination: it failed on `run[run.startIndex + handled]`. Fewer
    /// than `run.count` without a failure: shutdown stopped it.
    func deliver(
        _ run: ArraySlice<CommittedEvent>, to blocking: any BlockingDurableDestination, upcoming: ArraySlice<CommittedEvent>,
        unrecorded: inout Int, cursorBatch: Int
    ) -> (handled: Int, failure: DeliveryFailure?) {
        // Where each offered event is in `run`, counted from its start (nil: all are offered).
        let positions: [Int]? = kinds.map { kinds in
            (0..<run.count).filter { kinds.contains(run[run.startIndex + $0].envelope.event.kind) }
        }
        let offered = positions.map { ArraySlice($0.map { run[run.startIndex + $0] }) } ?? run
        /// Done with once `count` offered events are accepted: everything before the next offered one.
        func handled(after count: Int) -> Int {
            count == offered.count ? run.count : positions?[count] ?? count
        }
        var accepted = 0
        var booked = (accepted: 0, handled: 0)
        /// Moves the books (`handledUpTo`, the statistics) up to what is accepted now.
        func book(failed: Bool) {
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
            booked = (accepted, done)
        }
        let failure = blocking.deliverBlocking(offered, upcoming: upcoming) { count in
            accepted = count
            unrecorded += 1
            if unrecorded >= cursorBatch {
                book(failed: false)
                persistCursor()
                unrecorded = 0
            }
            return !isStopping
        }
        book(failed: failure != nil)
        return (handled(after: accepted), failure)
    }

    /// The event of a readable journal row.
    static func readableEvent(_ entry: CommittedEntry) -> CommittedEvent? {
        if case .event(let envelope) = entry { envelope } else { nil }
    }

    /// Hands `envelope` to the destination in a task (cancelled by shutdown) and
    /// waits for it on this thread, or to a `BlockingDurableDestination` on this
    /// thread directly; the failure, if it failed.
    func attempt(_ envelope: EventEnvelope) -> DeliveryFailure? {
        if let blocking = blockingDestination {
            return blocking.deliverBlocking([CommittedEvent(envelope, text: nil)], upcoming: []) { _ in true }
        }
        let outcome = Locked<DeliveryFailure?>(nil)
        let done = DispatchSemaphore(value: 0)
        let destination = destination
        let task = Task.detached {
            do throws(DeliveryFailure) {
                try await destination.deliver(envelope)
            } catch {
                outcome.withLock { $0 = error }
            }
            done.signal()
        }
        if update({ state in
            state.current = task; state.currentSequence = envelope.sequence; return state.stopping
        }) {
            task.cancel()
        }
        done.wait()
        update { state in
            state.current = nil
            state.currentSequence = nil
        }
        return outcome.withLock { $0 }
    }
}
