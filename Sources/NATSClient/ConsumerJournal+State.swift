import JuiceMakerCore
import JuiceMakerPluginKit

/// What a `ConsumerJournal` keeps: the messages it holds, by the number each was given,
/// and what it remembers of those it let go.
extension ConsumerJournal {
    struct Held {
        /// Its `sequence` is the number this process gave it.
        let envelope: EventEnvelope
        let streamSequence: Int64
        var message: NATSMessage
    }

    /// The stream sequences of the last messages this process acknowledged or gave
    /// numbers to, and their numbers: how a copy sent again is recognised and how a
    /// number is told as a stream sequence, without keeping every message of a long run.
    struct Recent {
        private(set) var order: [Int64] = []
        private(set) var numbers: [Int64: Int64] = [:]
        static let kept = 65_536

        mutating func remember(stream: Int64, number: Int64) {
            if numbers.updateValue(number, forKey: stream) == nil { order.append(stream) }
            if order.count > Self.kept * 2 {
                for stale in order.prefix(order.count - Self.kept) { numbers[stale] = nil }
                order.removeFirst(order.count - Self.kept)
            }
        }
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
        /// Stream sequences acknowledged by this process: a copy sent again is acknowledged, not held.
        var done = Recent()
        /// Stream sequences by number, for messages given a number lately (held or done).
        var streamOf: [Int64: Int64] = [:]
        var streamOfOrder: [Int64] = []
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
        var armed: [Int64: Int64] = [:]
        /// The stream sequence of each dead letter `deadLetters(for:)` listed, by the number it
        /// was listed under.
        var letters: [Int64: Int64] = [:]
    }
}

extension ConsumerJournal.State {
    /// Lets go of the message numbered `number`: no longer held, remembered as done.
    @discardableResult
    mutating func release(_ number: Int64) -> NATSMessage? {
        guard let held = held.removeValue(forKey: number) else { return nil }
        numberOf[held.streamSequence] = nil
        done.remember(stream: held.streamSequence, number: number)
        return held.message
    }

    /// Remembers which stream sequence `number` was given to, for the last messages numbered.
    mutating func rememberStream(_ sequence: Int64, of number: Int64) {
        streamOf[number] = sequence
        streamOfOrder.append(number)
        if streamOfOrder.count > ConsumerJournal.Recent.kept * 2 {
            let stale = streamOfOrder.count - ConsumerJournal.Recent.kept
            for old in streamOfOrder.prefix(stale) { streamOf[old] = nil }
            streamOfOrder.removeFirst(stale)
        }
    }

    /// The stream sequence of the message numbered `number`; `number` itself when it is
    /// not one this process gave lately (a dead letter's, which is the stream's).
    func stream(of number: Int64) -> Int64 {
        held[number]?.streamSequence ?? streamOf[number] ?? number
    }
}
