/// `juice-bench cli` (owned by the CLI work).
enum CLIBench {
    static func run(json: Bool) throws -> [String: Double] {
        throw BenchError.unavailable("cli")
    }
}
