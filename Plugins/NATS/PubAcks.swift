import CNATS
import Locking

/// The outcome of one asynchronous publish.
enum PubAckOutcome: Sendable {
    case stored(duplicate: Bool)
    case failed(NATSError)
}

/// The PubAcks of asynchronous publishes, by message id: libnats' thread records them
/// (`pubAckHandler`), the publishing thread waits for the one it needs. Everything is
/// behind one `LockedCondition`.
final class PubAcks: Sendable {
    private struct State {
        var expected: Set<String> = []
        var outcomes: [String: PubAckOutcome] = [:]
    }

    private let state = LockedCondition(State())

    func expect(_ id: String) {
        state.change { state in
            state.expected.insert(id)
            state.outcomes[id] = nil
        }
    }

    func forget(_ id: String) {
        state.change { state in
            state.expected.remove(id)
            state.outcomes[id] = nil
        }
    }

    func forgetAll() {
        state.change { state in
            state.expected.removeAll()
            state.outcomes.removeAll()
        }
    }

    /// Called on libnats' thread. An outcome nobody expects (forgotten) is dropped.
    func record(_ id: String, _ outcome: PubAckOutcome) {
        state.change { state in
            guard state.expected.contains(id) else { return }
            state.outcomes[id] = outcome
        }
    }

    /// The outcome for `id`, taken; `nil` when none came by `deadline`.
    func wait(for id: String, until deadline: ContinuousClock.Instant) -> PubAckOutcome? {
        _ = state.wait(until: deadline) { $0.outcomes[id] != nil }
        return state.change { state in
            state.expected.remove(id)
            return state.outcomes.removeValue(forKey: id)
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
    guard natsMsgHeader_Get(message, "Nats-Msg-Id", &idPointer) == NATS_OK, let idPointer else { return }
    let id = String(cString: idPointer)
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
