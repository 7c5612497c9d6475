import FleetConfiguration
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import JuiceMakerCore
import JuiceMakerPluginKit
import Locking
import NATSClient

/// A fleet subscriber's dead letters and retry state, kept under stream sequences
/// (in `bookkeeping`, the local store, when there is one) and told to the runner by the
/// numbers its messages were given (`ConsumerJournal`); and its lease, in this process.
extension ConsumerJournal {
    /// Kept under the message's stream sequence.
    package func recordDeadLetter(_ letter: DeadLetter) throws(StoreError) {
        let stream = state.withLock { $0.stream(of: letter.sequence) }
        try keep(
            DeadLetter(
                subscriber: letter.subscriber, sequence: stream, eventID: letter.eventID, attempts: letter.attempts,
                lastError: letter.lastError, recordedAt: letter.recordedAt))
    }

    /// Keeps `letter`, whose sequence is the stream's, its last error marked with the
    /// stream it belongs to (`StreamIdentity.mark`): `juice subscribers` tells the letters
    /// of a stream that is gone by it.
    func keep(_ letter: DeadLetter) throws(StoreError) {
        if let bookkeeping {
            try bookkeeping.recordDeadLetter(
                DeadLetter(
                    subscriber: Fleet.bookkeepingName(letter.subscriber), sequence: letter.sequence, eventID: letter.eventID,
                    attempts: letter.attempts, lastError: consumer.identity.marking(letter.lastError), recordedAt: letter.recordedAt))
            return
        }
        state.change { $0.deadLetters.append(letter) }
    }

    package func deadLetters(for subscriber: String?) throws(StoreError) -> [DeadLetter] {
        let letters: [DeadLetter]
        if let bookkeeping {
            let kept = try bookkeeping.deadLetters(for: subscriber.map(Fleet.bookkeepingName))
            letters = kept.compactMap { letter in
                guard let name = Fleet.subscriber(fromBookkeepingName: letter.subscriber) else { return nil }
                return DeadLetter(
                    subscriber: name, sequence: letter.sequence, eventID: letter.eventID, attempts: letter.attempts,
                    lastError: letter.lastError, recordedAt: letter.recordedAt)
            }
        } else {
            letters = state.withLock { state in state.deadLetters.filter { subscriber == nil || $0.subscriber == subscriber } }
        }
        // This subscriber's letters are told by number: a letter whose message is held here
        // by the number it was given; another by its stream sequence, which is no other
        // message's number, unless numbers have run ahead of stream sequences and it lies
        // ahead of them (a later message could be given it): such a letter is left out of
        // this list (the next run lists it; its redelivery waits until then).
        return state.change { state in
            state.armed = []
            state.letters = [:]
            return letters.compactMap { letter in
                guard letter.subscriber == self.subscriber else { return letter }
                let number: Int64
                // Held under its stream sequence, and the same event: a stream created anew
                // numbers other events with the letter's old sequence.
                if let held = state.numberOf[letter.sequence],
                    letter.eventID == EventID(high: 0, low: 0) || state.held[held]?.envelope.id == letter.eventID
                {
                    number = held
                } else if state.offset, letter.sequence > state.lastNumber {
                    return nil
                } else if state.held[letter.sequence] != nil {
                    return nil
                } else {
                    number = letter.sequence
                }
                state.armed.insert(number)
                state.letters[number] = (letter.sequence, letter.eventID)
                return DeadLetter(
                    subscriber: letter.subscriber, sequence: number, eventID: letter.eventID, attempts: letter.attempts,
                    lastError: letter.lastError, recordedAt: letter.recordedAt)
            }
        }
    }

    package func removeDeadLetters(for subscriber: String, sequences numbers: [Int64]) throws(StoreError) {
        let sequences = state.change { state in
            numbers.map { number in
                state.armed.remove(number)
                return state.letters.removeValue(forKey: number)?.stream ?? state.stream(of: number)
            }
        }
        if let bookkeeping {
            try bookkeeping.removeDeadLetters(for: Fleet.bookkeepingName(subscriber), sequences: sequences)
            return
        }
        let doomed = Set(sequences)
        state.change { state in state.deadLetters.removeAll { $0.subscriber == subscriber && doomed.contains($0.sequence) } }
    }

    /// The retry state kept under the stream sequence, told by the number its message was
    /// given when it is held here.
    package func retryState(for subscriber: String) throws(StoreError) -> DeliveryRetryState? {
        let kept: DeliveryRetryState?
        if let bookkeeping {
            kept = try bookkeeping.retryState(for: Fleet.bookkeepingName(subscriber))
        } else {
            kept = state.withLock { $0.retryStates[subscriber] }
        }
        guard var kept else { return nil }
        // Not held here: its stream sequence unless that could be another message's
        // number; then 0, which no event has (a `disabled` state still stops delivery).
        kept.sequence = state.withLock { state in
            if let number = state.numberOf[kept.sequence] { return number }
            let couldBeAnother = state.offset && (kept.sequence > state.lastNumber || state.held[kept.sequence] != nil)
            return couldBeAnother ? 0 : kept.sequence
        }
        return kept
    }

    package func setRetryState(_ retryState: DeliveryRetryState?, for subscriber: String) throws(StoreError) {
        var retryState = retryState
        if let number = retryState?.sequence { retryState?.sequence = state.withLock { $0.stream(of: number) } }
        if let bookkeeping {
            try bookkeeping.setRetryState(retryState, for: Fleet.bookkeepingName(subscriber))
            return
        }
        state.change { $0.retryStates[subscriber] = retryState }
    }

    package func takeDeliveryLease(for subscriber: String) throws(StoreError) -> DeliveryLease? {
        guard state.change({ $0.leased.insert(subscriber).inserted }) else { return nil }
        let state = state
        return DeliveryLease { state.change { _ = $0.leased.remove(subscriber) } }
    }
}
