import JuiceMakerPluginKit

/// The `juice` process as the thin executable (`Sources/juice/main.swift`) starts it:
/// the one public door into the CLI library.
public enum JuiceProcess {
    /// Runs one command line with the real streams and returns the exit code.
    public static func run(arguments: [String], environment: [String: String], workingDirectory: String) async -> Int32 {
        let runner = Runner(
            arguments: arguments,
            environment: environment,
            workingDirectory: workingDirectory,
            standardOutput: FileSink.standardOutput(),
            standardError: FileSink.standardError(),
            registry: .standard)
        return await runner.run().rawValue
    }
}
