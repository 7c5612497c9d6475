import CNATS
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
final class PubAcks: Sendable {
    private struct State {
        /// Each expected publish, with its outcome once it came.
        var pending: [EventID: PubAckOutcome?] = [:]
        /// The id the publishing thread waits for, if it waits.
        var awaited: EventID?
    }

    private let state = LockedCondition(State())

    func expect(_ id: EventID) {
        state.withLock { _ = $0.pending.updateValue(nil, forKey: id) }
    }

    func forget(_ id: EventID) {
        state.withLock { _ = $0.pending.removeValue(forKey: id) }
    }

    func forgetAll() {
        state.withLock { $0.pending.removeAll() }
    }

    /// Called on libnats' thread. An outcome nobody expects (forgotten) is dropped.
    func record(_ id: EventID, _ outcome: PubAckOutcome) {
        let awaited = state.withLock { state -> Bool in
            guard state.pending.index(forKey: id) != nil else { return false }
            state.pending.updateValue(outcome, forKey: id)
            return state.awaited == id
        }
        if awaited { state.change { _ in } }
    }

    /// The outcome for `id`, taken; `nil` when none came by `deadline`.
    func wait(for id: EventID, until deadline: ContinuousClock.Instant) -> PubAckOutcome? {
        state.withLock { $0.awaited = id }
        _ = state.wait(until: deadline) { state in
            if case .some(.some) = state.pending[id] { true } else { false }
        }
        return state.withLock { state in
            state.awaited = nil
            return state.pending.removeValue(forKey: id) ?? nil
        }
    }
}

/// libnats' callback for each asynchronous publish's answer, on its own thread: hands
/// the outcome to the `PubAcks` in `closure`, then destroys the message (ours, per the
/// libnats documentation).
let pubAckHandler: jsPubAckHandler = { _, message, ack, failure, closure in
    defer { natsMsg_Destroy(message) }
    guard let closure, let message else { return }
    let acks = Unmanaged<PubAcks>.fromOpaque(closure).takeUnretainedValue()
    var idPointer: UnsafePointer<CChar>?
    guard natsMsgHeader_Get(message, "Nats-Msg-Id", &idPointer) == NATS_OK, let idPointer,
        let id = EventID(utf8: UnsafeBufferPointer(start: UnsafeRawPointer(idPointer).assumingMemoryBound(to: UInt8.self), count: strlen(idPointer)))
    else { return }
    if let ack {
        acks.record(id, .stored(duplicate: ack.pointee.Duplicate))
    } else if let failure {
        let subject = String(cString: natsMsg_GetSubject(message))
        let text = String(cString: natsStatus_GetText(failure.pointee.Err))
        var line = "publishing to \(subject): \(text)"
        if let detail = failure.pointee.ErrText { line += " (\(String(cString: detail)))" }
        if failure.pointee.ErrCode.rawValue != 0 { line += " [JetStream error \(failure.pointee.ErrCode.rawValue)]" }
        let kind: NATSError.Kind = failure.pointee.Err == NATS_TIMEOUT ? .timeout : .unavailable
        acks.record(id, .failed(NATSError(line, kind: kind)))
    }
}
