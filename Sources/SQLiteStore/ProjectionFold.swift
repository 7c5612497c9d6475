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
        guard let (folded, storedVersion) = try state(connection), storedVersion == version else { return 0 }
        return folded
    }

    /// The projection's state row: how far it folded, and by which version (nil: no row).
    func state(_ connection: Connection) throws(StoreError) -> (folded: Int64, version: Int64)? {
        var state: (Int64, Int64)?
        try connection.forEachRow("SELECT folded, version FROM \(stateTable) WHERE id = 1") { row throws(StoreError) in
            state = (
                try row.integer(0, StoredColumn(stateTable, "folded"), row: "1"),
                try row.integer(1, StoredColumn(stateTable, "version"), row: "1")
            )
        }
        return state
    }

    /// Folds the journal rows after the projection's cursor up to `last`, inside the
    /// open write transaction, and moves the cursor to `last`.
    func catchUp(_ connection: Connection, through last: Int64) throws(StoreError) {
        let stored = try state(connection)
        var folded = stored?.folded ?? 0
        let storedVersion = stored?.version
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
