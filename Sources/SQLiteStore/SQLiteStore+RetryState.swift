import JuiceMakerCore

extension SQLiteStore {
    /// Migration 2 → 3: one row per durable subscriber whose oldest undelivered event
    /// failed; the row goes when that event is delivered or given up on.
    static let retryStatesTable = """
        CREATE TABLE IF NOT EXISTS retry_states (
            subscriber TEXT PRIMARY KEY,
            sequence INTEGER NOT NULL,
            attempts INTEGER NOT NULL,
            next_attempt_at REAL NOT NULL,
            last_error TEXT NOT NULL,
            disabled INTEGER NOT NULL DEFAULT 0
        ) WITHOUT ROWID;
        """

    package func retryState(for subscriber: String) throws(StoreError) -> DeliveryRetryState? {
        try reader.withLock { connection throws(StoreError) in
            var state: DeliveryRetryState?
            try connection.forEachRow(
                "SELECT sequence, attempts, next_attempt_at, last_error, disabled FROM retry_states WHERE subscriber = ?1"
            ) { statement in
                statement.bind(1, subscriber)
            } row: { row throws(StoreError) in
                let key = "subscriber '\(subscriber)'"
                state = DeliveryRetryState(
                    sequence: try row.integer(0, StoredColumn("retry_states", "sequence"), row: key),
                    attempts: try row.count(1, StoredColumn("retry_states", "attempts"), row: key),
                    nextAttemptAt: try row.time(2, StoredColumn("retry_states", "next_attempt_at"), row: key),
                    lastError: try row.string(3, StoredColumn("retry_states", "last_error"), row: key),
                    disabled: try row.integer(4, StoredColumn("retry_states", "disabled"), row: key) != 0)
            }
            return state
        }
    }

    package func setRetryState(_ state: DeliveryRetryState?, for subscriber: String) throws(StoreError) {
        try writable().withLock { connection throws(StoreError) in
            try connection.writeTransaction { () throws(StoreError) in
                guard let state else {
                    try connection.run("DELETE FROM retry_states WHERE subscriber = ?1") { $0.bind(1, subscriber) }
                    return
                }
                try connection.run(
                    """
                    INSERT OR REPLACE INTO retry_states (subscriber, sequence, attempts, next_attempt_at, last_error, disabled)
                    VALUES (?1, ?2, ?3, ?4, ?5, ?6)
                    """
                ) { statement in
                    statement.bind(1, subscriber)
                    statement.bind(2, state.sequence)
                    statement.bind(3, Int64(state.attempts))
                    statement.bind(4, state.nextAttemptAt)
                    statement.bind(5, state.lastError)
                    statement.bind(6, Int64(state.disabled ? 1 : 0))
                }
            }
        }
    }
}
