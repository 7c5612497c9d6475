/// Why a run of `juice` stopped without doing its work. Nothing was changed.
///
/// `message` is one line saying what was wrong and how to fix it. A usage error (64)
/// alone is followed by the usage line of its command (`juice help exit-codes`); a
/// refused value (65) and every other error are the one line.
struct CLIError: Error, Sendable {
    let code: ExitCode
    let message: LocalizedText
    /// The command path whose usage line is printed after the message: set by
    /// `usage(_:_:)` only.
    private(set) var usage: [CommandSpec]?

    init(_ code: ExitCode, _ message: LocalizedText) {
        self.code = code
        self.message = message
    }

    /// A mistake on the command line of `command` (exit 64, with its usage line).
    static func usage(_ message: LocalizedText, _ command: [CommandSpec]) -> CLIError {
        var error = CLIError(.usage, message)
        error.usage = command
        return error
    }
}
