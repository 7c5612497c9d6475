#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import JuiceMakerCore
import JuiceMakerPluginKit

/// The runner's pass in journal order for a pipelined destination (see
/// `DurableDelivery`): each event offered only after every earlier one is done with,
/// in runs (`DeliveryIntake.pipelined`), with the cursor written as they are accepted.
extension DurableDelivery {
    /// Delivers `batch` in order until it ends, an event fails or must wait.
    ///
    /// The batch is read further ahead (the next
    /// `readSize`, on a thread of its own while this one is delivered, joined once
    /// fewer than half remain), so the destination's look ahead
    /// (`upcoming`: the readable events after this one) never runs dry at a batch's
    /// end: a pipelined destination keeps publishing while the runner reads. An
    /// unreadable row is never offered: it becomes a dead letter at once and the
    /// cursor moves past it.
    func deliver(_ first: [CommittedEntry], retry: DeliveryRetryState?, served: UInt64, reader: inout JournalReadAhead?) {
        var batch = first
        // The readable events of `batch`, in order (its runs
        // are slices of them); `readable[nextReadable...]` are those after the entry
        // being delivered.
        var readable = first.compactMap(Self.readableEvent)
        var nextReadable = 0
        // Whether `reader` is reading the next batch while this one is delivered.
        var readingAhead = false
        if first.count == readSize, let last = first.last {
            let made = reader ?? JournalReadAhead(journal)
            reader = made
            made.read(after: last.sequence, limit: readSize)
            readingAhead = true
        }
        var index = 0
        var unrecorded = 0
        defer {
            if unrecorded > 0 { persistCursor() }
            // Never leave a read running past this pass (the journal outlives it, but a shutdown should find no read at work).
            if readingAhead { _ = reader?.entries() }
        }
        while index < batch.count {
            let entry = batch[index]
            index += 1
            if isStopping { return }
            if readingAhead, let reading = reader, batch.count - index < readSize / 2 {
                let next = reading.entries()
                readingAhead = false
                if next.count == readSize, let last = next.last {
                    reading.read(after: last.sequence, limit: readSize)
                    readingAhead = true
                }
                if index > readSize * 4 {
                    batch.removeFirst(index)
                    index = 0
                    readable.removeFirst(nextReadable)
                    nextReadable = 0
                }
                batch += next
                readable += next.compactMap(Self.readableEvent)
            }
            let envelope: EventEnvelope
            switch entry {
            case .event(let event):
                envelope = event.envelope
                nextReadable += 1
            case .unreadable(let row):
                if unrecorded > 0 {
                    persistCursor()
                    unrecorded = 0
                }
                guard deadLetterUnreadable(row, retry: retry) else { return }
                continue
            }
            if let kinds, !kinds.contains(envelope.event.kind) {
                progress {
                    $0.handledUpTo = envelope.sequence; $0.statistics.skipped += 1
                }
                continue
            }
            var attempts = 0
            var early: DeliveryRetryState?
            if let retry, retry.sequence == envelope.sequence {
                attempts = retry.attempts
                let wait = retry.nextAttemptAt - Date().timeIntervalSince1970
                let forced = progress { state in
                    defer { state.forceAttempt = false }; return state.forceAttempt
                }
                if wait > 0, forced { early = retry }
                if wait > 0, !forced {
                    pause(.waitingForRetry(until: retry.nextAttemptAt), served: served, until: Self.retryDeadline(in: wait))
                    return
                }
            }
            // A run: this event and the readable rows after it, up to the first
            // unreadable one (or, while the next batch is read, to half a batch
            // before the end: it is joined there, and the next run goes on). A
            // retried event is offered alone.
            var end = index
            let limit = readingAhead ? batch.count - readSize / 2 + 1 : batch.count
            while attempts == 0, end < limit, case .event = batch[end] { end += 1 }
            let first = nextReadable - 1
            let run = readable[first..<(first + end - index + 1)]
            progress { $0.forceAttempt = false }
            let (handled, failure) = deliver(run, upcoming: readable[run.endIndex...], unrecorded: &unrecorded)
            if let failure {
                persistCursor()
                recordFailure(of: run[run.startIndex + handled].envelope, attempt: attempts + 1, failure: failure, early: early)
                return
            }
            if attempts > 0, handled > 0 {
                _ = write { () throws(StoreError) in try journal.setRetryState(nil, for: name) }
                persistCursor()
                unrecorded = 0
            }
            guard handled == run.count else { return }  // stopping
            index = end
            nextReadable = run.endIndex
        }
    }
}
