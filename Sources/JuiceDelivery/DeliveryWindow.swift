import JuiceMakerCore
import JuiceMakerPluginKit

/// The events a windowed runner has read after its cursor and where each stands: the
/// bookkeeping of `DurableDelivery`'s window, without threads or I/O.
///
/// Slots are in journal order from the cursor (`base`). An event may be sent for the
/// first time only while fewer than `size` offered events (not passed over by the
/// filter) lie between the cursor and it, itself included: the window spans `size`
/// offered events from the cursor and cannot slide past one that is not done. So at
/// most `size` events are in flight, and at most `size` events after the cursor are
/// delivered at any time (what a crash sends again).
struct DeliveryWindow {
    enum Standing: Equatable {
        /// Not sent yet.
        case unsent
        case inFlight
        /// Failed; its next attempt is due at this Unix time.
        case waiting(until: Double)
        /// Delivered, passed over by the filter, or a dead letter.
        case done
    }

    struct Slot {
        let sequence: Int64
        /// `nil` for a row passed over (filtered out, unreadable): never sent.
        let envelope: EventEnvelope?
        var standing: Standing
        /// Failed attempts so far, counted against the schedule.
        var attempts = 0
        var lastError = ""
        /// The attempt under way was made before its time (`juice deliver`), which was
        /// this: a failure does not count against the schedule, and it waits until then.
        var early: Double?
        /// Not sent before this Unix time: a failure kept from an earlier pass or process,
        /// until the span reaches the slot.
        var restoredUntil: Double?
    }

    let size: Int
    /// The cursor: every event up to it is done with.
    private(set) var base: Int64
    private var slots: [Slot] = []
    /// `slots[head...]` are the slots after `base`.
    private var head = 0
    /// The first slot never sent (or passed over) yet.
    private var nextUnsent = 0
    /// Offered slots in `slots[head..<nextUnsent]`: the window's span in use.
    private var offeredAhead = 0
    /// Slots sent and not answered.
    private(set) var inFlight = 0
    /// No send before this Unix time (the endpoint asked to wait: `Retry-After`).
    var pausedUntil = 0.0
    /// The last sequence read from the journal into the window.
    private(set) var readThrough: Int64

    init(size: Int, base: Int64) {
        self.size = max(1, size)
        self.base = base
        readThrough = base
    }

    /// Slots read and not yet behind the cursor.
    var held: Int { slots.count - head }

    /// Whether more events may be read in: fewer than `size` unsent offered events wait.
    var wantsMore: Bool { slots.count - nextUnsent < size }

    /// Whether a send can start now (or at a due time): an unsent event within the span.
    var canSendNew: Bool { offeredAhead < size && firstUnsentOffered != nil }

    /// The slot for `sequence`, if held.
    func slot(_ sequence: Int64) -> Slot? {
        index(of: sequence).map { slots[$0] }
    }

    /// Appends an event read after `readThrough` (`envelope` nil: passed over, done at once).
    mutating func append(_ sequence: Int64, envelope: EventEnvelope?) {
        readThrough = max(readThrough, sequence)
        slots.append(Slot(sequence: sequence, envelope: envelope, standing: envelope == nil ? .done : .unsent))
    }

    /// Gives the unsent event at `sequence` a failed past (from the journal's retry
    /// state, or kept from an earlier pass): `attempts` made, the next due at `until`.
    mutating func restore(_ sequence: Int64, attempts: Int, until: Double, lastError: String) {
        guard let index = index(of: sequence), slots[index].standing == .unsent else { return }
        slots[index].attempts = attempts
        slots[index].lastError = lastError
        slots[index].restoredUntil = until
    }

    /// The events to send now, oldest first, marked in flight: retries that are due
    /// (all waiting ones when `force`, marked early), then new ones within the span.
    /// None while paused (unless `force`).
    mutating func takeSendable(now: Double, force: Bool) -> [EventEnvelope] {
        guard force || now >= pausedUntil else { return [] }
        if force { pausedUntil = 0 }
        var taken: [EventEnvelope] = []
        for index in head..<nextUnsent {
            guard case .waiting(let until) = slots[index].standing, let envelope = slots[index].envelope else { continue }
            guard force || until <= now else { continue }
            slots[index].early = until > now ? until : nil
            slots[index].standing = .inFlight
            inFlight += 1
            taken.append(envelope)
        }
        while offeredAhead < size, let index = firstUnsentOffered, let envelope = slots[index].envelope {
            nextUnsent = index + 1
            offeredAhead += 1
            let restored = slots[index].restoredUntil ?? 0
            slots[index].restoredUntil = nil
            if restored > now, !force {
                // In the span now, but its own schedule says later.
                slots[index].standing = .waiting(until: restored)
                continue
            }
            slots[index].standing = .inFlight
            slots[index].early = restored > now ? restored : nil
            inFlight += 1
            taken.append(envelope)
        }
        return taken
    }

    /// Records the answer for `sequence`: `done`, or waiting until `until` after a
    /// failure (`countsAttempt`: one more attempt against the schedule).
    mutating func answer(_ sequence: Int64, becomes standing: Standing, countsAttempt: Bool, error: String?) {
        guard let index = index(of: sequence), slots[index].standing == .inFlight else { return }
        inFlight -= 1
        slots[index].standing = standing
        if countsAttempt { slots[index].attempts += 1 }
        if let error { slots[index].lastError = error }
    }

    /// Moves the cursor over the done prefix; returns the events it passed (offered or not).
    mutating func advance() -> [Slot] {
        var passed: [Slot] = []
        while head < slots.count, slots[head].standing == .done {
            if head < nextUnsent, slots[head].envelope != nil { offeredAhead -= 1 }
            passed.append(slots[head])
            base = slots[head].sequence
            head += 1
        }
        nextUnsent = max(nextUnsent, head)
        if head > 1_024, head * 2 > slots.count {
            slots.removeFirst(head)
            nextUnsent -= head
            head = 0
        }
        return passed
    }

    /// The oldest event not done, if it failed: what the journal's retry state keeps.
    var failingHead: Slot? {
        guard head < slots.count, slots[head].attempts > 0 else { return nil }
        return slots[head]
    }

    /// Whether an event older than `sequence` has failed and is not done yet.
    func failsBefore(_ sequence: Int64) -> Bool {
        for index in head..<slots.count {
            if slots[index].sequence >= sequence { return false }
            if slots[index].attempts > 0, slots[index].standing != .done { return true }
        }
        return false
    }

    /// The earliest time a send could start, if nothing is in flight and nothing can
    /// start now; `nil` when nothing waits at all.
    func nextDue() -> Double? {
        var earliest: Double?
        for index in head..<nextUnsent {
            if case .waiting(let until) = slots[index].standing { earliest = min(earliest ?? until, until) }
        }
        if canSendNew { earliest = min(earliest ?? 0, 0) }
        return earliest.map { max($0, pausedUntil) }
    }

    /// The failed events not done, with their attempts and next due time: kept across
    /// passes, so each keeps its own schedule.
    var failures: [(sequence: Int64, attempts: Int, until: Double, lastError: String)] {
        slots[head...].compactMap { slot in
            guard slot.attempts > 0, case .waiting(let until) = slot.standing else { return nil }
            return (slot.sequence, slot.attempts, until, slot.lastError)
        }
    }

    /// Forgets every failure's attempts: each is due now, with a full schedule again
    /// (`juice subscribers retry`).
    mutating func forgetAttempts() {
        for index in head..<slots.count where slots[index].standing != .done && slots[index].standing != .inFlight {
            slots[index].attempts = 0
            slots[index].restoredUntil = nil
            if case .waiting = slots[index].standing { slots[index].standing = .waiting(until: 0) }
        }
        pausedUntil = 0
    }

    private var firstUnsentOffered: Int? {
        var index = nextUnsent
        while index < slots.count {
            if slots[index].standing == .unsent { return index }
            if slots[index].envelope != nil, slots[index].standing != .done { return nil }
            index += 1
        }
        return nil
    }

    private func index(of sequence: Int64) -> Int? {
        // Slots are in journal order: a binary search.
        var low = head
        var high = slots.count
        while low < high {
            let middle = low + (high - low) / 2
            if slots[middle].sequence < sequence { low = middle + 1 } else { high = middle }
        }
        return low < slots.count && slots[low].sequence == sequence ? low : nil
    }
}
