import JuiceMakerCore

/// When each durable subscriber last delivered an event, kept with its cursor.
extension SQLiteStore {
    /// Migration 4 → 5: when each durable subscriber last delivered an event (its
    /// last success), written with its cursor.
    static let deliveriesTable = """
        CREATE TABLE IF NOT EXISTS deliveries (
            subscriber TEXT PRIMARY KEY,
            delivered_at REAL NOT NULL
        ) WITHOUT ROWID;
        """

    package func setCursor(named name: String, to sequence: Int64, deliveredAt: Double) throws(StoreError) {
        try writeCursor(named: name, to: sequence, deliveredAt: deliveredAt)
    }

    /// Moves the cursor and, with `deliveredAt`, the delivery time, in one transaction
    /// (a crash never keeps one without the other). Both only move forward, also when
    /// two processes deliver at once.
    ///
    /// Written with `synchronous=NORMAL` whatever the store's durability: a cursor
    /// write survives a crash of the process (what the at-most-one-resend-per-crash
    /// promise needs) without waiting for `fsync`; a power loss may take the last
    /// cursor moves back, which only resends events (the journal itself stays `FULL`).
    func writeCursor(named name: String, to sequence: Int64, deliveredAt: Double?) throws(StoreError) {
        try writable().withLock { connection throws(StoreError) in
            let relaxed = durability != .normal
            if relaxed { try connection.execute(Durability.normal.pragma) }
            defer { if relaxed { try? connection.execute(durability.pragma) } }
            try connection.writeTransaction { () throws(StoreError) in
                try Self.raise("cursors", "sequence", of: name, in: connection) { $0.bind(2, sequence) }
                guard let deliveredAt else { return }
                try Self.raise("deliveries", "delivered_at", of: name, in: connection) { $0.bind(2, deliveredAt) }
            }
        }
    }

    /// Sets `subscriber`'s `column` in `table` to the value `bindValue` binds as `?2`,
    /// unless the row holds a larger one: a cursor, or a delivery time, never moves back
    /// when two processes deliver at once.
    private static func raise(
        _ table: String, _ column: String, of subscriber: String, in connection: Connection, to bindValue: (Statement) -> Void
    ) throws(StoreError) {
        try connection.run(
            """
            INSERT INTO \(table) (subscriber, \(column)) VALUES (?1, ?2)
            ON CONFLICT (subscriber) DO UPDATE SET \(column) = max(\(column), excluded.\(column))
            """
        ) { statement in
            statement.bind(1, subscriber)
            bindValue(statement)
        }
    }

    package func lastDelivery(for subscriber: String) throws(StoreError) -> Double? {
        try reader.withLock { connection throws(StoreError) in
            var time: Double?
            try connection.forEachRow("SELECT delivered_at FROM deliveries WHERE subscriber = ?1") { statement in
                statement.bind(1, subscriber)
            } row: { row throws(StoreError) in
                time = try row.time(0, StoredColumn("deliveries", "delivered_at"), row: "subscriber '\(subscriber)'")
            }
            return time
        }
    }
}
