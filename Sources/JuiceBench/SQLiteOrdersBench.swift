/// `juice-bench orders --store sqlite` (owned by the SQLite store work).
enum SQLiteOrdersBench {
    /// Returns the JSON members for `"orders"` (e.g. `"sqlite_full_per_s":…`) after printing the table.
    static func run(durabilities: [String], json: Bool) throws -> [String: Double] {
        throw BenchError.unavailable("orders --store sqlite")
    }
}
