import JuiceMakerCore

/// How the journal's projections (the report's hourly sums, the all-time totals) keep
/// up with it: each has a table of sums and a one-row state table that says how far
/// into the journal it has folded and with which version of its SQL.
struct ProjectionFold {
    /// The table of sums, emptied when the version changes.
    let table: String
    /// The state table: `id` (always 1), `folded` (the last sequence folded in), `version`.
    let stateTable: String
    /// The statements that add journal rows `?1 < sequence <= ?2` into `table`.
    let folds: [String]
    /// The version of `folds`; a projection folded by another version starts over.
    let version: Int64
    /// The statement that fills an emptied `table` from `journal_rollups`: a projection
    /// that starts over starts from the sums of the events compaction deleted, then
    /// folds the journal after them.
    let seed: String

    /// The last sequence the projection has folded in (0: none, or another version's).
    func folded(_ connection: Connection) throws(StoreError) -> Int64 {
        var folded: Int64 = 0
        try connection.forEachRow("SELECT folded, version FROM \(stateTable) WHERE id = 1") { row in
            folded = row.int64(1) == version ? row.int64(0) : 0
        }
        return folded
    }

    /// Folds the journal rows after the projection's cursor up to `last`, inside the
    /// open write transaction, and moves the cursor to `last`.
    func catchUp(_ connection: Connection, through last: Int64) throws(StoreError) {
        var folded: Int64 = 0
        var storedVersion: Int64?
        try connection.forEachRow("SELECT folded, version FROM \(stateTable) WHERE id = 1") { row in
            folded = row.int64(0)
            storedVersion = row.int64(1)
        }
        if storedVersion != version {
            try connection.run("DELETE FROM \(table)")
            try connection.run(seed)
            folded = try connection.compactionState().through
        }
        guard last != folded || storedVersion != version else { return }
        if last > folded {
            for sql in folds {
                try connection.run(sql) { statement in
                    statement.bind(1, folded)
                    statement.bind(2, last)
                }
            }
        }
        try connection.run(
            """
            INSERT INTO \(stateTable) (id, folded, version) VALUES (1, ?1, ?2)
            ON CONFLICT (id) DO UPDATE SET folded = excluded.folded, version = excluded.version
            """
        ) { statement in
            statement.bind(1, last)
            statement.bind(2, version)
        }
    }
}
