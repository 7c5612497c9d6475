#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import JuiceMakerCore

extension SQLiteStore {
    /// `recoveries`: each recovery that wrote this file, and the largest sequence its
    /// damaged original was seen to reach; new events are numbered after it
    /// (`Connection.journalPosition`). `lost_events`: what each subscriber lost. (The
    /// same step adds the journal's `digest`: `Schema.addedColumns`.)
    static let lossesTables = """
        CREATE TABLE IF NOT EXISTS recoveries (
            recovered_at REAL NOT NULL,
            last_sequence INTEGER NOT NULL
        );
        CREATE TABLE IF NOT EXISTS lost_events (
            subscriber TEXT NOT NULL,
            first INTEGER NOT NULL,
            last INTEGER NOT NULL,
            recovered_at REAL NOT NULL,
            PRIMARY KEY (subscriber, first)
        ) WITHOUT ROWID;
        """

    package func lostEvents(for subscriber: String?) throws(StoreError) -> [LostEvents] {
        try reader.withLock { connection throws(StoreError) in
            var lost: [LostEvents] = []
            let sql =
                "SELECT subscriber, first, last, recovered_at FROM lost_events"
                + (subscriber == nil ? "" : " WHERE subscriber = ?1") + " ORDER BY subscriber, first"
            try connection.forEachRow(sql) { statement in
                if let subscriber { statement.bind(1, subscriber) }
            } row: { row throws(StoreError) in
                let name = try row.string(0, StoredColumn("lost_events", "subscriber"), row: "of lost events")
                let first = try row.integer(1, StoredColumn("lost_events", "first"), row: "subscriber '\(name)'")
                let key = "subscriber '\(name)' first \(first)"
                let last = try row.integer(2, StoredColumn("lost_events", "last"), row: key)
                guard first <= last else { return }
                lost.append(
                    LostEvents(
                        subscriber: name, sequences: first...last,
                        recoveredAt: try row.time(3, StoredColumn("lost_events", "recovered_at"), row: key)))
            }
            return lost
        }
    }

    @discardableResult
    package func acknowledgeLostEvents(of subscriber: String) throws(StoreError) -> Int {
        try writable().withLock { connection throws(StoreError) in
            try connection.writeTransaction { () throws(StoreError) -> Int in
                let count = try connection.integer("SELECT count(*) FROM lost_events WHERE subscriber = ?1") { $0.bind(1, subscriber) } ?? 0
                try connection.run("DELETE FROM lost_events WHERE subscriber = ?1") { $0.bind(1, subscriber) }
                return Int(count)
            }
        }
    }
}
