import Testing
@testable import JuiceCLI

extension CommandLineParser {
    /// The error `words` are refused with; records an issue and returns nil when they parse.
    func refusal(_ words: [String], sourceLocation: SourceLocation = #_sourceLocation) -> CLIError? {
        do {
            _ = try parse(words)
            Issue.record("\(words) parsed", sourceLocation: sourceLocation)
            return nil
        } catch {
            return error
        }
    }

    /// Expects `words` refused as a usage error whose English text starts with `message`.
    func expectUsageError(_ words: [String], startingWith message: String, sourceLocation: SourceLocation = #_sourceLocation) {
        guard let error = refusal(words, sourceLocation: sourceLocation) else { return }
        #expect(error.code == .usage, sourceLocation: sourceLocation)
        #expect(error.message.english.hasPrefix(message), "\(words): \(error.message.english)", sourceLocation: sourceLocation)
    }
}
