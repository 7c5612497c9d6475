import CNATSLoader
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import JuiceMakerCore
import Locking

/// The outcome of one asynchronous publish.
enum PubAckOutcome: Sendable {
    case stored(duplicate: Bool)
    case failed(NATSError)
}

/// The PubAcks of asynchronous publishes, by message id (the event id): libnats'
/// thread records them (`pubAckHandler`), the publishing thread waits for the one it
/// needs. Everything is behind one `LockedCondition`, which is signalled only when the
/// outcome the publishing thread waits for comes in (not at every PubAck, which would
/// wake it once per message for nothing).
///
/// Kept in publish order, not in a dictionary: PubAcks come back in that order, and the
/// publishing thread awaits the oldest, so finding one is a comparison or two of two
/// words, not a hash per call.
final class PubAcks: Sendable {
    private struct Expected {
        let id: EventID
        var outcome: PubAckOutcome?
    }

    private struct State {
        /// Each expected publish, in publish order, with its outcome once it came:
        /// `expected[head...]`.
        var expected: [Expected] = []
        var head = 0
        /// Where the next PubAck is looked for first: after the last one recorded.
        var hint = 0
        /// The id the publishing thread waits for, if it waits.
        var awaited: EventID?

        /// The index of `id`'s entry: from `start` on, then from the head.
        func index(of id: EventID, from start: Int) -> Int? {
            let start = max(head, min(start, expected.count))
            if let found = expected[start...].firstIndex(where: { $0.id == id }) { return found }
            return expected[head..<start].firstIndex { $0.id == id }
        }

        /// Removes the entry at `index`; the spent front is let go once it outgrows
        /// the live part, so the array stays bounded by what is outstanding.
        mutating func remove(at index: Int) {
            if index == head {
                head += 1
            } else {
                expected.remove(at: index)
                if hint > index { hint -= 1 }
            }
            hint = max(hint, head)
            if head == expected.count {
                expected.removeAll(keepingCapacity: true)
                head = 0
                hint = 0
            } else if head >= 64, head * 2 >= expected.count {
                expected.removeFirst(head)
                hint -= head
                head = 0
            }
        }
    }

    private let state = LockedCondition(State())

    func expect(_ id: EventID) {
        state.withLock { $0.expected.append(Expected(id: id)) }
    }

    func forget(_ id: EventID) {
        state.withLock { state in
            if let index = state.index(of: id, from: state.expected.count - 1) { state.remove(at: index) }
        }
    }

    func forgetAll() {
        state.withLock { state in
            state.expected.removeAll(keepingCapacity: true)
            state.head = 0
            state.hint = 0
        }
    }

    /// Called on libnats' thread. An outcome nobody expects (forgotten) is dropped.
    func record(_ id: EventID, _ outcome: PubAckOutcome) {
        let awaited = state.withLock { state -> Bool in
            guard let index = state.index(of: id, from: state.hint) else { return false }
            state.expected[index].outcome = outcome
            state.hint = index + 1
            return state.awaited == id
        }
        if awaited { state.change { _ in } }
    }

    /// The outcome for `id`, taken; `nil` when none came by `deadline`.
    func wait(for id: EventID, until deadline: ContinuousClock.Instant) -> PubAckOutcome? {
        // Usually it is in already (published a window ahead): one lock, then.
        let arrived = state.withLock { state -> PubAckOutcome? in
            guard let index = state.index(of: id, from: state.head), let outcome = state.expected[index].outcome else {
                state.awaited = id
                return nil
            }
            state.remove(at: index)
            return outcome
        }
        if let arrived { return arrived }
        _ = state.wait(until: deadline) { state in
            guard let index = state.index(of: id, from: state.head) else { return false }
            return state.expected[index].outcome != nil
        }
        return state.withLock { state in
            state.awaited = nil
            guard let index = state.index(of: id, from: state.head) else { return nil }
            let outcome = state.expected[index].outcome
            state.remove(at: index)
            return outcome
        }
    }
}

/// libnats' callback for each asynchronous publish's answer, on its own thread: hands
/// the outcome to the `PubAcks` in `closure`, then destroys the message (ours, per the
/// libnats documentation).
let pubAckHandler: jsPubAckHandler = { _, message, ack, failure, closure in
    defer { nats.pointee.natsMsg_Destroy(message) }
    guard let closure, let message else { return }
    let acks = Unmanaged<PubAcks>.fromOpaque(closure).takeUnretainedValue()
    var idPointer: UnsafePointer<CChar>?
    guard nats.pointee.natsMsgHeader_Get(message, "Nats-Msg-Id", &idPointer) == NATS_OK, let idPointer,
        let id = EventID(utf8: UnsafeBufferPointer(start: UnsafeRawPointer(idPointer).assumingMemoryBound(to: UInt8.self), count: strlen(idPointer)))
    else { return }
    if let ack {
        acks.record(id, .stored(duplicate: ack.pointee.Duplicate))
    } else if let failure {
        let subject = nats.pointee.natsMsg_GetSubject(message).map { String(cString: $0) } ?? ""
        let text = nats.pointee.natsStatus_GetText(failure.pointee.Err).map { String(cString: $0) } ?? "status \(failure.pointee.Err.rawValue)"
        var line = "publishing to \(subject): \(text)"
        if let detail = failure.pointee.ErrText { line += " (\(String(cString: detail)))" }
        if failure.pointee.ErrCode.rawValue != 0 { line += " [JetStream error \(failure.pointee.ErrCode.rawValue)]" }
        let kind: NATSError.Kind
        switch failure.pointee.Err {
        case NATS_TIMEOUT: kind = .timeout
        case NATS_NO_RESPONDERS:
            kind = .noStream
            line += "; no stream takes the subject, and the stream is checked (and created) again on the next attempt"
        default: kind = .unavailable
        }
        acks.record(id, .failed(NATSError(line, kind: kind)))
    }
}
