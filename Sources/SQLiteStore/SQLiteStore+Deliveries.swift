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

    public func setCursor(named name: String, to sequence: Int64, deliveredAt: Double) throws(StoreError) {
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
                try connection.run(
                    """
                    INSERT INTO cursors (subscriber, sequence) VALUES (?1, ?2)
                    ON CONFLICT (subscriber) DO UPDATE SET sequence = max(sequence, excluded.sequence)
                    """
                ) { statement in
                    statement.bind(1, name)
                    statement.bind(2, sequence)
                }
                guard let deliveredAt else { return }
                try connection.run(
                    """
                    INSERT INTO deliveries (subscriber, delivered_at) VALUES (?1, ?2)
                    ON CONFLICT (subscriber) DO UPDATE SET delivered_at = max(delivered_at, excluded.delivered_at)
                    """
                ) { statement in
                    statement.bind(1, name)
                    statement.bind(2, deliveredAt)
                }
            }
        }
    }

    public func lastDelivery(for subscriber: String) throws(StoreError) -> Double? {
        try reader.withLock { connection throws(StoreError) in
            var time: Double?
            try connection.forEachRow("SELECT delivered_at FROM deliveries WHERE subscriber = ?1") { statement in
                statement.bind(1, subscriber)
            } row: { row in
                time = row.double(0)
            }
            return time
        }
    }
}
