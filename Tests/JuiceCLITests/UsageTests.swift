import Foundation
import JuiceTestSupport
import Testing

/// Command-line mistakes exit 64 with the error and the usage line on stderr; a
/// well-formed but refused value exits 65 with the error line alone (`juice help
/// exit-codes` ties the usage line to 64); `--help` works at every level.
@Suite(.tags(.process), .notInUnitRun, .offPool) struct UsageTests {
    @Test(arguments: [["order", "kiwi\u{1B}[2J"], ["order", "banana", "--count", "1\n2"], ["stock", "set", "\u{9B}31m=1"]])
    func echoedWordsHaveTheirControlCharactersEscaped(arguments: [String]) throws {
        let result = try JuiceSandbox().run(arguments)
        #expect(result.status != 0)
        #expect(result.stderr.hasPrefix("Error: "), "\(result.stderr)")
        #expect(!result.stderr.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" || (0x7F...0x9F).contains($0.value) }, "\(result.stderr)")
        // One error line; whatever follows is the usage footer.
        #expect(result.stderr.split(separator: "\n").dropFirst().allSatisfy { $0.hasPrefix("Usage: ") || $0.hasPrefix("  ") }, "\(result.stderr)")
    }

    @Test(arguments: [
        (["blend"], Int32(64), "juice <subcommand>"),
        (["order"], 64, "juice order <juice>"),
        (["order", "banana", "--count", "abc"], 64, "juice order <juice>"),
        (["order", "banana", "--count", "0"], 65, "juice order <juice>"),
        (["order", "banana", "--count", "-1"], 65, "juice order <juice>"),
        (["events", "--since", "-1"], 65, "juice events"),
        (["events", "--limit", "0"], 65, "juice events"),
        (["order", "banana", "--colour"], 64, "juice order <juice>"),
        (["stock", "add", "kiwi"], 64, "juice stock add <fruit> <n>"),
        (["stock", "set"], 64, "juice stock set <fruit=n> ..."),
        (["stock", "set", "kiwi5"], 64, "juice stock set"),
        (["config"], 64, "juice config <subcommand>"),
        (["events", "--type", "juiceSpilled"], 64, "juice events"),
        (["stock", "--lang", "fr"], 64, "juice stock"),
        // Digits only, as the message says: no sign but '-'.
        (["order", "banana", "--count", "+2"], 64, "juice order <juice>"),
        (["stock", "set", "kiwi=+5"], 64, "juice stock set"),
        (["stock", "set", "kiwi= 5"], 64, "juice stock set"),
        (["order", "banana", "--count", "--json"], 64, "juice order <juice>"),
        (["stock", "--config="], 64, "juice stock"),
    ])
    func mistakesShowTheUsageLineOnlyForExit64(arguments: [String], status: Int32, usage: String) throws {
        let sandbox = try JuiceSandbox()
        let before = sandbox.storeBytes()
        let result = try sandbox.run(arguments)
        #expect(result.status == status, "\(arguments): \(result.stderr)")
        #expect(result.stdout.isEmpty)
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.first?.hasPrefix("Error: ") == true, "\(result.stderr)")
        if status == 64 {
            #expect(lines.dropFirst().first?.hasPrefix("Usage: \(usage)") == true, "\(result.stderr)")
        } else {
            #expect(lines.count == 1, "\(arguments): \(result.stderr)")
        }
        #expect(sandbox.storeBytes() == before)
    }

    /// A required option is shown without brackets, in the usage line and in --help.
    @Test func aRequiredOptionIsShownAsRequired() throws {
        let sandbox = try JuiceSandbox()
        let help = try sandbox.run(["store", "recover", "--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("USAGE: juice store recover --to <file>"), "\(help.stdout)")
        #expect(!help.stdout.contains("[--to <file>]"), "\(help.stdout)")
        let missing = try sandbox.run(["store", "recover"])
        #expect(missing.status == 64)
        #expect(!missing.stderr.contains("[--to <file>]"), "\(missing.stderr)")
    }

    @Test func usageErrorsSpeakKorean() throws {
        let sandbox = try JuiceSandbox(language: "ko_KR.UTF-8")
        let result = try sandbox.run(["order"])
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix("오류: "))
        #expect(result.stderr.contains("사용법: juice order <juice>"))
    }

    @Test(arguments: [
        ([], "SUBCOMMANDS"), (["order"], "--count <n>"), (["stock"], "SUBCOMMANDS"), (["stock", "add"], "<fruit>"),
        (["stock", "set"], "<fruit=n>"), (["events"], "--since <sequence>"), (["config"], "show"),
        (["config", "show"], "OVERVIEW"), (["menu"], "OVERVIEW"), (["subscribers"], "OVERVIEW"),
    ])
    func helpAtEveryLevel(path: [String], expected: String) throws {
        let sandbox = try JuiceSandbox()
        for flag in ["--help", "-h"] {
            let result = try sandbox.run(path + [flag])
            #expect(result.status == 0)
            #expect(result.stdout.contains("USAGE: juice \((path).joined(separator: " "))".trimmingCharacters(in: .whitespaces)))
            #expect(result.stdout.contains(expected), "\(path): \(result.stdout)")
            #expect(result.stdout.contains("--json"))
        }
        let viaHelp = try sandbox.run(["help"] + path)
        #expect(viaHelp.status == 0)
        #expect(viaHelp.stdout.contains(expected))
    }

    @Test func version() throws {
        let result = try JuiceSandbox().run(["--version"])
        #expect(result.status == 0)
        #expect(result.stdout.hasPrefix("juice "))
    }
}
