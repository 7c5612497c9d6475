import JuiceMakerCore
import Locking

/// The next journal batch, read on a thread of its own while the runner delivers the
/// one before: for a pipelined destination, reading (the store, decoding) then costs
/// the runner's thread nothing. `entries()` waits for the read; a store failure reads
/// as no entries (the runner reads again on its next pass, and reports it there).
final class JournalReadAhead: Sendable {
    private let result = LockedCondition<[JournalEntry]?>(nil)

    init(_ journal: any EventJournal, after sequence: Int64, limit: Int) {
        startDetachedThread(named: "juice.delivery.read") { [result] in
            let entries = (try? journal.entries(after: sequence, limit: limit)) ?? []
            result.change { $0 = entries }
        }
    }

    /// The entries read, once the read is done.
    func entries() -> [JournalEntry] {
        _ = result.wait(until: nil) { $0 != nil }
        return result.withLock { $0 ?? [] }
    }
}
