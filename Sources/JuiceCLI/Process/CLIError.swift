/// Why a run of `juice` stopped without doing its work. Nothing was changed.
///
/// `message` is one line saying what was wrong and how to fix it. When `usage` is
/// set, the usage line of that command follows it (command-line mistakes).
struct CLIError: Error, Sendable {
    let code: ExitCode
    let message: LocalizedText
    /// The command path whose usage line is printed after the message.
    var usage: [CommandSpec]?

    init(_ code: ExitCode, _ message: LocalizedText, usage: [CommandSpec]? = nil) {
        self.code = code
        self.message = message
        self.usage = usage
    }

    /// A mistake on the command line of `command` (exit 64, with its usage line).
    static func usage(_ message: LocalizedText, _ command: [CommandSpec]) -> CLIError {
        CLIError(.usage, message, usage: command)
    }
}
