import Foundation

/// The scratch directories the benches write their stores, configs and copies into.
enum BenchDirectory {
    /// Makes a new directory `juice-bench-<name>-<UUID>` in the system's temporary
    /// directory and returns its path; the caller removes it.
    static func make(_ name: String) throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("juice-bench-\(name)-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return directory
    }

    /// Throws unless the `sqlite3` shell the benches compare against is installed.
    static func requireSQLiteShell() throws {
        guard FileManager.default.isExecutableFile(atPath: CLIBench.shell) else {
            throw BenchError.unavailable("\(CLIBench.shell) (apt-get install sqlite3)")
        }
    }
}
