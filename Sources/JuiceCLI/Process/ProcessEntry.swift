import JuiceMakerPluginKit

/// The `juice` process as the thin executable (`Sources/juice/main.swift`) starts it:
/// the one public door into the CLI library.
public enum JuiceProcess {
    /// Runs one command line with the real streams and returns the exit code.
    /// - Parameter undecodableArgument: the position (from 1) of the first argument
    ///   that was not valid UTF-8 (`firstUndecodableArgument()`), which is refused.
    public static func run(
        arguments: [String], environment: [String: String], workingDirectory: String, undecodableArgument: Int? = nil
    ) async -> Int32 {
        let runner = Runner(
            arguments: arguments,
            environment: environment,
            workingDirectory: workingDirectory,
            standardOutput: FileSink.standardOutput(),
            standardError: FileSink.standardError(),
            registry: .standard,
            undecodableArgument: undecodableArgument)
        return await runner.run().rawValue
    }

    /// The position (from 1) of the first of this process's arguments that is not valid
    /// UTF-8, or nil. `CommandLine.arguments` has already replaced such bytes with U+FFFD.
    public static func firstUndecodableArgument() -> Int? {
        (1..<Int(CommandLine.argc)).first { index in
            guard let argument = CommandLine.unsafeArgv[index] else { return false }
            return String(validatingCString: argument) == nil
        }
    }
}
