#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import JuiceMakerCore

/// A durable subscriber's cursor moved back by an operator, so its receiver gets the
/// events after it again (with the ids it already knows).
public struct CursorRewind: Sendable, Equatable {
    public var subscriber: String
    /// The cursor before the rewind.
    public var from: Int64
    /// The cursor after it: events after `to` are delivered again.
    public var to: Int64
    /// When (seconds since the epoch).
    public var at: Double
}

/// What `rewind` did.
public enum RewindOutcome: Sendable, Equatable {
    case rewound(CursorRewind)
    /// The cursor is already at or before where it was asked to go: nothing changed.
    case notBehind(cursor: Int64)
    /// Going there would need events compaction deleted: nothing changed. History
    /// starts at `historyStart`, an event of `firstTime` (nil for an empty journal).
    case beforeHistory(historyStart: Int64, firstTime: Date?)
}

extension SQLiteStore {
    /// Part of migration 6 → 7: each subscriber's last rewind.
    static let rewindsTable = """
        CREATE TABLE IF NOT EXISTS rewinds (
            subscriber TEXT PRIMARY KEY,
            from_sequence INTEGER NOT NULL,
            to_sequence INTEGER NOT NULL,
            rewound_at REAL NOT NULL
        ) WITHOUT ROWID;
        """

    /// Where a rewind goes: to just before the event of a sequence, or before the
    /// first event at or after a time.
    public enum RewindTarget: Sendable, Equatable {
        case sequence(Int64)
        case time(Date)
    }

    /// Moves `subscriber`'s cursor back so the events from `target` on are delivered
    /// again, in one write transaction: never before where history starts (events
    /// compaction deleted are gone), never forward. Its retry state goes (the events are
    /// tried afresh); its dead letters stay. The caller holds the subscriber's delivery
    /// lease, so no runner moves the cursor meanwhile.
    public func rewind(_ subscriber: String, to target: RewindTarget, now: Date = Date()) throws(StoreError) -> RewindOutcome {
        try writable().withLock { connection throws(StoreError) in
            try connection.writeTransaction { () throws(StoreError) -> RewindOutcome in
                let through = try connection.compactionState().through
                let cursor = try connection.cursor(of: subscriber)
                var first: (sequence: Int64, time: Int64)?
                try connection.forEachRow("SELECT sequence, time FROM journal ORDER BY sequence LIMIT 1") { row in
                    first = (row.int64(0), row.int64(1))
                }
                let before = RewindOutcome.beforeHistory(
                    historyStart: through + 1, firstTime: first.map { Date(timeIntervalSince1970: Double($0.time) / 1000) })
                let goal: Int64
                switch target {
                case .sequence(let sequence):
                    goal = sequence - 1
                case .time(let date):
                    let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded(.up))
                    let earlier = try connection.integer("SELECT max(sequence) FROM journal WHERE time < ?1") { $0.bind(1, milliseconds) }
                    // No kept event is older: the events just before `date` may be among the deleted ones.
                    if earlier == nil || earlier == 0, through > 0 { return before }
                    goal = earlier ?? 0
                }
                guard goal >= through else { return before }
                guard goal < cursor else { return .notBehind(cursor: cursor) }
                try connection.run("UPDATE cursors SET sequence = ?2 WHERE subscriber = ?1") { statement in
                    statement.bind(1, subscriber)
                    statement.bind(2, goal)
                }
                try connection.run("DELETE FROM retry_states WHERE subscriber = ?1") { $0.bind(1, subscriber) }
                let rewind = CursorRewind(subscriber: subscriber, from: cursor, to: goal, at: now.timeIntervalSince1970)
                try connection.run(
                    """
                    INSERT OR REPLACE INTO rewinds (subscriber, from_sequence, to_sequence, rewound_at) VALUES (?1, ?2, ?3, ?4)
                    """
                ) { statement in
                    statement.bind(1, subscriber)
                    statement.bind(2, rewind.from)
                    statement.bind(3, rewind.to)
                    statement.bind(4, rewind.at)
                }
                return .rewound(rewind)
            }
        }
    }

    /// Each subscriber's last rewind, by name.
    public func rewinds() throws(StoreError) -> [String: CursorRewind] {
        try reader.withLock { connection throws(StoreError) in
            var rewinds: [String: CursorRewind] = [:]
            try connection.forEachRow("SELECT subscriber, from_sequence, to_sequence, rewound_at FROM rewinds") { row throws(StoreError) in
                let name = try row.string(0, StoredColumn("rewinds", "subscriber"), row: "of a rewind")
                let key = "subscriber '\(name)'"
                rewinds[name] = CursorRewind(
                    subscriber: name, from: try row.integer(1, StoredColumn("rewinds", "from_sequence"), row: key),
                    to: try row.integer(2, StoredColumn("rewinds", "to_sequence"), row: key),
                    at: try row.time(3, StoredColumn("rewinds", "rewound_at"), row: key))
            }
            return rewinds
        }
    }
}
