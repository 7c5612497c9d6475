import JuiceMakerCore
import JuiceMakerPluginKit
import Locking

/// Reads the next journal batch on a thread of its own while the runner delivers the
/// one before: for a pipelined destination, reading (the store, decoding) then costs
/// the runner's thread nothing. One thread serves a runner for its whole run (made on
/// the first read ahead, ended by `stop()`), not one per batch.
///
/// `read(after:limit:)` asks for a batch, `entries()` waits for it; one read at a
/// time. A store failure reads as no entries (the runner reads again on its next
/// pass, and reports it there).
final class JournalReadAhead: Sendable {
    private enum Job: Sendable {
        case idle
        case asked(after: Int64, limit: Int)
        case done([CommittedEntry])
        case stopping
    }

    private let job = LockedCondition(Job.idle)

    init(_ journal: any EventJournal) {
        startDetachedThread(named: "juice.delivery.read") { [job] in
            while true {
                _ = job.wait(until: nil) { job in
                    switch job {
                    case .asked, .stopping: true
                    case .idle, .done: false
                    }
                }
                guard case .asked(let sequence, let limit) = job.withLock({ $0 }) else { return }
                let entries = (try? journal.committedEntries(after: sequence, limit: limit)) ?? []
                let stopped = job.change { job -> Bool in
                    if case .stopping = job { return true }
                    job = .done(entries)
                    return false
                }
                if stopped { return }
            }
        }
    }

    /// Starts reading up to `limit` entries after `sequence`.
    func read(after sequence: Int64, limit: Int) {
        job.change { job in
            if case .stopping = job { return }
            job = .asked(after: sequence, limit: limit)
        }
    }

    /// The entries of the read asked for, once it is done; none when none was asked.
    func entries() -> [CommittedEntry] {
        _ = job.wait(until: nil) { job in
            if case .asked = job { false } else { true }
        }
        return job.withLock { job -> [CommittedEntry] in
            guard case .done(let entries) = job else { return [] }
            job = .idle
            return entries
        }
    }

    /// Ends the thread once its read, if any, is done.
    func stop() {
        job.change { $0 = .stopping }
    }
}
