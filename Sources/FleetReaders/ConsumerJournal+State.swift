import JuiceMakerCore
import JuiceMakerPluginKit
import NATSClient

/// What a `ConsumerJournal` keeps: the messages it holds, by the number each was given,
/// and what it remembers of those it let go.
extension ConsumerJournal {
    struct Held {
        /// Its `sequence` is the number this process gave it.
        let envelope: EventEnvelope
        let streamSequence: Int64
        var message: NATSMessage
    }

    /// A map that keeps only its last `kept` keys (at most twice that between trims):
    /// what the journal remembers of the messages it let go, without keeping every
    /// message of a long run.
    struct Recent<Key: Hashable & Sendable>: Sendable {
        private var order: [Key] = []
        private(set) var values: [Key: Int64] = [:]
        static var kept: Int { 65_536 }

        subscript(key: Key) -> Int64? { values[key] }

        mutating func remember(_ key: Key, _ value: Int64) {
            if values.updateValue(value, forKey: key) == nil { order.append(key) }
            if order.count > Self.kept * 2 {
                for stale in order.prefix(order.count - Self.kept) { values[stale] = nil }
                order.removeFirst(order.count - Self.kept)
            }
        }
    }

    /// A message refused for good: its stream (`NATSMessage.generation`) and stream sequence.
    struct RefusedMessage: Hashable, Sendable {
        let generation: Int
        let sequence: Int64
    }

    struct State {
        /// By the number given.
        var held: [Int64: Held] = [:]
        /// The number of each held message, by its stream sequence.
        var numberOf: [Int64: Int64] = [:]
        /// The last number given.
        var lastNumber: Int64 = 0
        /// Whether a message was numbered above its stream sequence: from then on a stream
        /// sequence above `lastNumber` may be a later message's number.
        var offset = false
        /// The cursor's number: every message numbered up to it is acknowledged.
        var acknowledged: Int64 = 0
        /// The numbers of the events this process acknowledged lately, by event id: a copy
        /// sent again (by the consumer, or stored again in a new stream) is acknowledged,
        /// not delivered again.
        var done = Recent<EventID>()
        /// The stream sequences of the numbers given lately (held or done).
        var streamOf = Recent<Int64>()
        /// The messages refused lately, by stream and stream sequence: one that comes again
        /// (its consumer created again from an older ack floor) is terminated without a
        /// second line or letter.
        var refused = Recent<RefusedMessage>()
        var cursors: [String: Int64] = [:]
        var deadLetters: [DeadLetter] = []
        var retryStates: [String: DeliveryRetryState] = [:]
        var leased: Set<String> = []
        var stopped = false
        var feeding = false
        /// The last message fetched said the consumer had none pending after it.
        var drained = false
        /// Dead letters whose redelivery may ask for them: those `deadLetters(for:)`
        /// listed last, until each is read once.
        var armed: Set<Int64> = []
        /// The stream sequence and event id of each dead letter `deadLetters(for:)` listed, by
        /// the number it was listed under.
        var letters: [Int64: (stream: Int64, id: EventID)] = [:]
    }
}

extension ConsumerJournal.State {
    /// Lets go of the message numbered `number`: no longer held, remembered as done.
    @discardableResult
    mutating func release(_ number: Int64) -> NATSMessage? {
        guard let held = held.removeValue(forKey: number) else { return nil }
        // A new stream's message with the same stream sequence may be held under another number.
        if numberOf[held.streamSequence] == number { numberOf[held.streamSequence] = nil }
        done.remember(held.envelope.id, number)
        return held.message
    }

    /// The held events numbered after `sequence`, in number order, at most `limit`.
    func heldEvents(after sequence: Int64, limit: Int) -> [EventEnvelope] {
        Array(held.filter { $0.key > sequence }.sorted { $0.key < $1.key }.prefix(max(0, limit)).map(\.value.envelope))
    }

    /// The stream sequence of the message numbered `number`; `number` itself when it is
    /// not one this process gave lately (a dead letter's, which is the stream's).
    func stream(of number: Int64) -> Int64 {
        held[number]?.streamSequence ?? streamOf[number] ?? number
    }
}
