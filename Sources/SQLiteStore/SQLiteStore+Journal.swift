#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import JuiceMakerCore

extension SQLiteStore {
    /// How often one waiter looks for commits made by other processes.
    static let followInterval = Duration.milliseconds(25)

    public func lastSequence() throws(StoreError) -> Int64 {
        try reader.withLock { connection throws(StoreError) in try connection.lastSequence() }
    }

    public func events(after sequence: Int64, limit: Int) throws(StoreError) -> [EventEnvelope] {
        guard limit > 0 else { return [] }
        return try reader.withLock { connection throws(StoreError) in try connection.events(after: sequence, limit: limit) }
    }

    public func events(after sequence: Int64, kinds: Set<EventKind>?, limit: Int, newest: Bool) throws(StoreError) -> [EventEnvelope] {
        try Connection.events(from: entries(after: sequence, kinds: kinds, limit: limit, newest: newest), path: path)
    }

    public func entries(after sequence: Int64, limit: Int) throws(StoreError) -> [JournalEntry] {
        guard limit > 0 else { return [] }
        return try reader.withLock { connection throws(StoreError) in
            try connection.entries(after: sequence, type: nil, limit: limit, newest: false)
        }
    }

    /// Each event with its `event` column as committed (it holds `CloudEventFormat.encode`
    /// of the event), read in the pass that decodes it.
    public func committedEntries(after sequence: Int64, limit: Int) throws(StoreError) -> [CommittedEntry] {
        guard limit > 0 else { return [] }
        return try reader.withLock { connection throws(StoreError) in
            try connection.committedEntries(after: sequence, limit: limit)
        }
    }

    /// Answers from the indexes: the primary key for every kind, and
    /// `journal_by_type (type, sequence)` per kind, merged; reads only the rows it
    /// returns (at most `limit` per kind), from either end.
    public func entries(after sequence: Int64, kinds: Set<EventKind>?, limit: Int, newest: Bool) throws(StoreError) -> [JournalEntry] {
        guard limit > 0 else { return [] }
        return try reader.withLock { connection throws(StoreError) -> [JournalEntry] in
            guard let kinds else {
                return try connection.entries(after: sequence, type: nil, limit: limit, newest: newest)
            }
            var merged: [JournalEntry] = []
            for kind in kinds.sorted(by: { $0.rawValue < $1.rawValue }) {
                merged += try connection.entries(after: sequence, type: kind.cloudEventType, limit: limit, newest: newest)
            }
            merged.sort { $0.sequence < $1.sequence }
            return newest ? Array(merged.suffix(limit)) : Array(merged.prefix(limit))
        }
    }

    /// Sees a commit of this process at once (a condition variable) and one of
    /// another process within `followInterval` plus a query: however many threads
    /// wait, one of them (the poller) looks at `PRAGMA data_version`, which costs
    /// microseconds and changes only when someone committed, and wakes the others.
    public func waitForEvents(after sequence: Int64, timeout: Duration) throws(StoreError) -> Bool {
        var seenVersion: Int64?
        return try waitForCommits(timeout: timeout) { connection, version throws(StoreError) in
            // The version is read first, so the sequence read after it is at least as new.
            defer { seenVersion = version }
            guard version != seenVersion else { return false }
            return try connection.lastSequence() > sequence
        }
    }

    /// The store's commit count as this process sees it: it changes when another
    /// connection commits (`PRAGMA data_version`).
    public func commitVersion() throws(StoreError) -> Int64 {
        try reader.withLock { connection throws(StoreError) in try connection.dataVersion() }
    }

    /// Waits until a commit of any process, with events or without (a cursor moved, a
    /// retry recorded), makes `commitVersion` differ from `version`, or `timeout`
    /// passes; returns whether one did. Seen as `waitForEvents` sees commits.
    public func waitForCommit(after version: Int64, timeout: Duration) throws(StoreError) -> Bool {
        try waitForCommits(timeout: timeout) { _, current in current != version }
    }

    /// Looks at `PRAGMA data_version`, then asks `isDone` (with the reader connection
    /// and that version), at every local commit and every commit the poller sees,
    /// until it says yes or `timeout` passes.
    private func waitForCommits(
        timeout: Duration, isDone: (Connection, Int64) throws(StoreError) -> Bool
    ) throws(StoreError) -> Bool {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        waiters.add(1, ordering: .sequentiallyConsistent)
        defer { waiters.subtract(1, ordering: .sequentiallyConsistent) }
        var isPoller = false
        defer { if isPoller { arrivals.change { $0.polling = false } } }
        while true {
            // Read before looking: a local commit after this changes it.
            let generation = arrivals.withLock { $0.generation }
            let (version, done) = try reader.withLock { connection throws(StoreError) -> (Int64, Bool) in
                let version = try connection.dataVersion()
                return (version, try isDone(connection, version))
            }
            // The first to see a commit made elsewhere wakes the others.
            let isNews = arrivals.withLock { arrivals -> Bool in
                defer { arrivals.version = version }
                return arrivals.version.map { $0 != version } ?? false
            }
            if isNews { arrivals.change { $0.generation &+= 1 } }
            if done { return true }
            guard ContinuousClock.now < deadline else { return false }
            if !isPoller {
                isPoller = arrivals.withLock { arrivals -> Bool in
                    guard !arrivals.polling else { return false }
                    arrivals.polling = true
                    return true
                }
            }
            if isPoller {
                // The poller wakes at a local commit or after the interval, and looks.
                _ = arrivals.wait(until: min(deadline, .now + Self.followInterval)) { $0.generation != generation }
            } else {
                // The others wake when the poller saw something, a local commit came,
                // or the poller left (one of them takes over).
                _ = arrivals.wait(until: deadline) { $0.generation != generation || !$0.polling }
            }
        }
    }

    public func cursor(named name: String) throws(StoreError) -> Int64 {
        try reader.withLock { connection throws(StoreError) in
            try connection.cursor(of: name)
        }
    }

    /// Written as `writeCursor` says (SQLiteStore+Deliveries.swift): `synchronous=NORMAL`.
    public func setCursor(named name: String, to sequence: Int64) throws(StoreError) {
        try writeCursor(named: name, to: sequence, deliveredAt: nil)
    }

    public func cursors() throws(StoreError) -> [String: Int64] {
        try reader.withLock { connection throws(StoreError) in
            var cursors: [String: Int64] = [:]
            try connection.forEachRow("SELECT subscriber, sequence FROM cursors") { row throws(StoreError) in
                let name = try row.string(0, StoredColumn("cursors", "subscriber"), row: "of a cursor")
                cursors[name] = try row.integer(1, StoredColumn("cursors", "sequence"), row: "subscriber '\(name)'")
            }
            return cursors
        }
    }

    package func recordDeadLetter(_ letter: DeadLetter) throws(StoreError) {
        try writable().withLock { connection throws(StoreError) in
            try connection.writeTransaction { () throws(StoreError) in
                try connection.run(
                    """
                    INSERT OR REPLACE INTO dead_letters (subscriber, sequence, event_id, attempts, last_error, recorded_at)
                    VALUES (?1, ?2, ?3, ?4, ?5, ?6)
                    """
                ) { statement in
                    statement.bind(1, letter.subscriber)
                    statement.bind(2, letter.sequence)
                    statement.bind(3, letter.eventID.description)
                    statement.bind(4, Int64(letter.attempts))
                    statement.bind(5, letter.lastError)
                    statement.bind(6, letter.recordedAt)
                }
            }
        }
    }

    package func deadLetters(for subscriber: String?) throws(StoreError) -> [DeadLetter] {
        try reader.withLock { connection throws(StoreError) in
            var letters: [DeadLetter] = []
            let sql =
                subscriber == nil
                ? "SELECT subscriber, sequence, event_id, attempts, last_error, recorded_at FROM dead_letters ORDER BY rowid"
                : "SELECT subscriber, sequence, event_id, attempts, last_error, recorded_at FROM dead_letters WHERE subscriber = ?1 ORDER BY rowid"
            try connection.forEachRow(sql) { statement in
                if let subscriber { statement.bind(1, subscriber) }
            } row: { row throws(StoreError) in
                guard let id = EventID(row.text(2)) else {
                    throw StoreError(.deadLetterWithoutEventID(subscriber: row.text(0)), path: path)
                }
                let name = try row.string(0, StoredColumn("dead_letters", "subscriber"), row: "of a dead letter")
                let sequence = try row.integer(1, StoredColumn("dead_letters", "sequence"), row: "subscriber '\(name)'")
                let key = "subscriber '\(name)' sequence \(sequence)"
                letters.append(
                    DeadLetter(
                        subscriber: name, sequence: sequence, eventID: id,
                        attempts: try row.count(3, StoredColumn("dead_letters", "attempts"), row: key),
                        lastError: try row.string(4, StoredColumn("dead_letters", "last_error"), row: key),
                        recordedAt: try row.time(5, StoredColumn("dead_letters", "recorded_at"), row: key)))
            }
            return letters
        }
    }

    package func removeDeadLetters(for subscriber: String, sequences: [Int64]) throws(StoreError) {
        guard !sequences.isEmpty else { return }
        try writable().withLock { connection throws(StoreError) in
            try connection.writeTransaction { () throws(StoreError) in
                for sequence in sequences {
                    try connection.run("DELETE FROM dead_letters WHERE subscriber = ?1 AND sequence = ?2") { statement in
                        statement.bind(1, subscriber)
                        statement.bind(2, sequence)
                    }
                }
            }
        }
    }
}
