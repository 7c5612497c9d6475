import Foundation
import JuiceTestSupport
import Testing

/// Whatever a message echoes (a word typed, a config name or path, a subscriber's
/// report) reaches the terminal with its control characters escaped (`\e`, `\n`,
/// `\u{9b}`) and cut at 80 characters with `…`; JSON output stays JSON.
@Suite(.tags(.process), .notInUnitRun, .offPool) struct EchoTests {
    /// No C0 or C1 control character, nor DEL, except the newline ending each line.
    private func isClean(_ text: String) -> Bool {
        !text.unicodeScalars.contains { ($0.value < 0x20 && $0 != "\n") || (0x7F...0x9F).contains($0.value) }
    }

    @Test func anOSCSequenceInAnArgumentIsEscaped() async throws {
        let result = try await JuiceSandbox().running(["order", "ki\u{1B}]0;PWNED\u{7}wi"])
        #expect(result.status == 65)
        #expect(result.stderr == "Error: unknown juice 'ki\\e]0;PWNED\\u{7}wi'. See 'juice menu' for the names.\n", "\(result.stderr)")
    }

    @Test func aNewlineInAnArgumentKeepsTheErrorOnOneLine() async throws {
        let result = try await JuiceSandbox().running(["order", "kiwl\nX"])
        #expect(result.status == 65)
        #expect(result.stderr == "Error: unknown juice 'kiwl\\nX'. See 'juice menu' for the names.\n", "\(result.stderr)")
    }

    @Test func aLongArgumentIsCutWithAnEllipsis() async throws {
        let word = String(repeating: "x", count: 100_000)
        for arguments in [["order", word], ["stock", "add", word, "1"], ["stock", "set", word + "=1"], ["events", "--type", word], [word]] {
            let result = try await JuiceSandbox().running(arguments)
            #expect(result.status == 64 || result.status == 65)
            let line = try #require(result.stderr.split(separator: "\n").first)
            #expect(line.contains(String(repeating: "x", count: 80) + "…"), "\(arguments.count): \(line.prefix(200))")
            #expect(line.count < 250, "\(line.count) characters")
        }
    }

    @Test func aScreenLineIsEscapedAndCut() async throws {
        let sandbox = try JuiceSandbox()
        let result = try await sandbox.running(
            ["stock", "edit"], input: "foo\u{1B}[2J bar baz\n" + String(repeating: "y", count: 500) + " 3\ncancel\n")
        #expect(isClean(result.stderr), "\(result.stderr)")
        #expect(result.stderr.contains("'foo\\e[2J bar baz' is not a stock command"))
        #expect(result.stderr.contains(String(repeating: "y", count: 80) + "…"))
    }

    /// A subscriber's name from the config: in `config check`, in `subscribers`, and in
    /// a refusal that quotes it; the JSON keeps it whole, JSON-escaped.
    @Test func aConfigNameIsEscapedWhereverItIsShown() async throws {
        let sandbox = try JuiceSandbox()
        let config = try sandbox.write(
            #"{"subscribers": [{"type": "cli-notifier", "name": "n\u001b]0;PWN\u0007\u009b31m"}]}"#, to: "names.json")
        let check = try await sandbox.running(["config", "check", "--config", config])
        #expect(check.status == 0)
        #expect(isClean(check.stdout), "\(check.stdout)")
        #expect(check.stdout.contains("(subscribers: n\\e]0;PWN\\u{7}\\u{9b}31m)"), "\(check.stdout)")
        let table = try await sandbox.running(["subscribers", "--config", config])
        #expect(isClean(table.stdout), "\(table.stdout)")
        let retry = try await sandbox.running(["subscribers", "retry", "n\u{1B}]0;PWN\u{7}\u{9B}31m", "--config", config])
        #expect(retry.status == 65)
        #expect(isClean(retry.stderr), "\(retry.stderr)")
        #expect(retry.stderr.contains("'n\\e]0;PWN\\u{7}\\u{9b}31m'"), "\(retry.stderr)")
        let json = try await sandbox.running(["subscribers", "--config", config, "--json"])
        let items = try #require(try json.json() as? [[String: Any]])
        #expect(items.first?["name"] as? String == "n\u{1B}]0;PWN\u{7}\u{9B}31m", "JSON keeps the value")
    }

    @Test func aLongValueFromTheConfigIsCutInAnError() async throws {
        let sandbox = try JuiceSandbox()
        let level = String(repeating: "z", count: 300)
        let config = try sandbox.write(#"{"subscribers": [{"type": "logger", "level": "\#(level)"}]}"#, to: "level.json")
        let result = try await sandbox.running(["config", "check", "--config", config])
        #expect(result.status == 78)
        #expect(result.stderr.contains(String(repeating: "z", count: 40)))
        #expect(!result.stderr.contains(level), "cut: \(result.stderr)")
        #expect(result.stderr.contains("…"))
    }

    @Test func aConfigPathWithControlCharactersIsEscaped() async throws {
        let sandbox = try JuiceSandbox()
        let path = try sandbox.write(#"{"subscribers": []}"#, to: "odd\u{1B}[31mname.json")
        let check = try await sandbox.running(["config", "check", "--config", path])
        #expect(check.status == 0)
        #expect(isClean(check.stdout), "\(check.stdout)")
        #expect(check.stdout.contains("odd\\e[31mname.json"))
        let show = try await sandbox.running(["config", "show", "--config", path])
        #expect(isClean(show.stdout), "\(show.stdout)")
    }
}
