import Foundation
import JuiceMakerCore

extension SQLiteStore {
    /// How often `waitForEvents` looks for commits made by other processes.
    static let followInterval = Duration.milliseconds(10)

    public func lastSequence() throws(StoreError) -> Int64 {
        try reader.withLock { connection throws(StoreError) in try connection.lastSequence() }
    }

    public func events(after sequence: Int64, limit: Int) throws(StoreError) -> [EventEnvelope] {
        guard limit > 0 else { return [] }
        return try reader.withLock { connection throws(StoreError) in try connection.events(after: sequence, limit: limit) }
    }

    /// Sees a commit of this process at once and one of another process within
    /// `followInterval` plus a query: it sleeps between looks at `PRAGMA data_version`,
    /// which costs microseconds and changes only when someone committed.
    public func waitForEvents(after sequence: Int64, timeout: Duration) throws(StoreError) -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        waiters.add(1, ordering: .sequentiallyConsistent)
        defer { waiters.subtract(1, ordering: .sequentiallyConsistent) }
        var seenVersion: Int64?
        while true {
            let (version, last) = try reader.withLock { connection throws(StoreError) -> (Int64, Int64?) in
                let version = try connection.dataVersion()
                // The version is read first, so the sequence read after it is at least as new.
                return (version, version == seenVersion ? nil : try connection.lastSequence())
            }
            if let last, last > sequence { return true }
            seenVersion = version
            let now = clock.now
            guard now < deadline else { return false }
            let slice = min(deadline - now, Self.followInterval)
            let seconds = Double(slice.components.seconds) + Double(slice.components.attoseconds) / 1e18
            arrivals.lock()
            _ = arrivals.wait(until: Date().addingTimeInterval(seconds))
            arrivals.unlock()
        }
    }

    public func cursor(named name: String) throws(StoreError) -> Int64 {
        try reader.withLock { connection throws(StoreError) in
            try connection.integer("SELECT sequence FROM cursors WHERE subscriber = ?1") { $0.bind(1, name) } ?? 0
        }
    }

    public func setCursor(named name: String, to sequence: Int64) throws(StoreError) {
        try writer.withLock { connection throws(StoreError) in
            try connection.writeTransaction { () throws(StoreError) in
                // Cursors only move forward, also when two processes deliver at once.
                try connection.run("""
                    INSERT INTO cursors (subscriber, sequence) VALUES (?1, ?2)
                    ON CONFLICT (subscriber) DO UPDATE SET sequence = max(sequence, excluded.sequence)
                    """) { statement in
                    statement.bind(1, name)
                    statement.bind(2, sequence)
                }
            }
        }
    }

    public func cursors() throws(StoreError) -> [String: Int64] {
        try reader.withLock { connection throws(StoreError) in
            var cursors: [String: Int64] = [:]
            try connection.forEachRow("SELECT subscriber, sequence FROM cursors") { row in
                cursors[row.text(0)] = row.int64(1)
            }
            return cursors
        }
    }

    public func recordDeadLetter(_ letter: DeadLetter) throws(StoreError) {
        try writer.withLock { connection throws(StoreError) in
            try connection.writeTransaction { () throws(StoreError) in
                try connection.run("""
                    INSERT OR REPLACE INTO dead_letters (subscriber, sequence, event_id, attempts, last_error, recorded_at)
                    VALUES (?1, ?2, ?3, ?4, ?5, ?6)
                    """) { statement in
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

    public func deadLetters(for subscriber: String?) throws(StoreError) -> [DeadLetter] {
        try reader.withLock { connection throws(StoreError) in
            var letters: [DeadLetter] = []
            let sql = subscriber == nil
                ? "SELECT subscriber, sequence, event_id, attempts, last_error, recorded_at FROM dead_letters ORDER BY rowid"
                : "SELECT subscriber, sequence, event_id, attempts, last_error, recorded_at FROM dead_letters WHERE subscriber = ?1 ORDER BY rowid"
            try connection.forEachRow(sql) { statement in
                if let subscriber { statement.bind(1, subscriber) }
            } row: { row throws(StoreError) in
                guard let id = EventID(row.text(2)) else {
                    throw StoreError(.corrupt, path: path, detail:
                        "a dead letter of \(row.text(0)) has no valid event id; restore a backup or choose another path with --store")
                }
                letters.append(DeadLetter(
                    subscriber: row.text(0), sequence: row.int64(1), eventID: id,
                    attempts: Int(row.int64(3)), lastError: row.text(4), recordedAt: row.double(5)))
            }
            return letters
        }
    }

    public func removeDeadLetters(for subscriber: String, sequences: [Int64]) throws(StoreError) {
        guard !sequences.isEmpty else { return }
        try writer.withLock { connection throws(StoreError) in
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
