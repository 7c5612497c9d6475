import Foundation
import JuiceMakerCore
import JuiceTestSupport
import SQLiteStore
import Testing

/// Small edges of the command line: did-you-mean for commands, `--type` in any
/// spelling, `--version` and `--help` beside bad words, the screens and `--json`,
/// a stopped subscriber's state.
@Suite(.tags(.process), .notInUnitRun, .offPool) struct CommandLineEdgeTests {
    @Test(arguments: [
        (["ordr"], "unknown command 'ordr' for 'juice'. Did you mean 'order'?"),
        (["stock", "ad", "kiwi", "1"], "unknown command 'ad' for 'juice stock'. Did you mean 'add'?"),
        (["config", "chek"], "unknown command 'chek' for 'juice config'. Did you mean 'check'?"),
        (["blend"], "unknown command 'blend' for 'juice'."),
    ])
    func aMistypedCommandGetsASuggestion(arguments: [String], message: String) async throws {
        let result = try await JuiceSandbox().running(arguments)
        #expect(result.status == 64)
        #expect(result.stderr.split(separator: "\n").first.map(String.init) == "Error: " + message, "\(result.stderr)")
    }

    @Test func aMistypedCommandInKorean() async throws {
        let result = try await JuiceSandbox(language: "ko_KR.UTF-8").running(["ordr"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("'juice'에 'ordr'라는 명령은 없습니다. 'order'을(를) 말씀하신 건가요?"), "\(result.stderr)")
    }

    @Test func typeIsReadInAnyCaseAndSpelling() async throws {
        let sandbox = try JuiceSandbox()
        try await sandbox.running(["order", "banana"])
        try await sandbox.running(["order", "strawberry"])
        let expected = try await sandbox.running(["events", "--type", "juiceMade", "--json"])
        #expect(expected.status == 0)
        #expect(expected.stdout.split(separator: "\n").count == 1)
        for spelling in ["juicemade", "JUICE-MADE", "juice_made", "Juice Made", "JUICEMAKER.JUICE.MADE"] {
            let result = try await sandbox.running(["events", "--type", spelling, "--json"])
            #expect(result.status == 0, "\(spelling): \(result.stderr)")
            #expect(result.stdout == expected.stdout, "\(spelling)")
        }
        let typo = try await sandbox.running(["events", "--type", "juiceMdae"])
        #expect(typo.status == 64)
        #expect(typo.stderr.hasPrefix("Error: unknown event type 'juiceMdae'. Did you mean 'juiceMade'?"), "\(typo.stderr)")
    }

    @Test(arguments: [
        (["--version", "extra"], "unexpected argument 'extra'."),
        (["--version", "order"], "unexpected argument 'order'."),
        (["-h", "--lang", "xx"], "'xx' is not a language for '--lang'; use ko or en."),
        (["order", "--help", "--colour"], "unknown option '--colour'."),
        (["help", "order", "--lang=fr"], "'fr' is not a language for '--lang'; use ko or en."),
        (["--version", "--lang", "xx"], "'xx' is not a language for '--lang'; use ko or en."),
    ])
    func versionAndHelpReportABadArgument(arguments: [String], message: String) async throws {
        let result = try await JuiceSandbox().running(arguments)
        #expect(result.status == 64, "\(arguments)")
        #expect(result.stdout.isEmpty, "\(result.stdout)")
        #expect(result.stderr.hasPrefix("Error: " + message), "\(result.stderr)")
    }

    @Test func versionAndHelpStillWorkWithGoodOptions() async throws {
        let sandbox = try JuiceSandbox()
        #expect(try await sandbox.running(["--version", "--lang", "ko"]).stdout.hasPrefix("juice "))
        let help = try await sandbox.running(["order", "-h", "--lang", "ko"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("juice order <juice>"))
        #expect(help.stdout.contains("개요"), "in Korean")
        #expect(try await sandbox.running(["order", "-qh"]).status == 0)
    }

    @Test(arguments: [["shell", "--json"], ["--json", "stock", "edit"]])
    func theScreensRefuseJSON(arguments: [String]) async throws {
        let sandbox = try JuiceSandbox()
        let result = try await sandbox.running(arguments, input: "7\nq\n")
        #expect(result.status == 64)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        #expect(result.stderr.contains("is a screen for a person and prints no JSON; leave out '--json'"), "\(result.stderr)")
        #expect(sandbox.storeBytes() == nil, "nothing ran")
        let korean = try await JuiceSandbox(language: "ko_KR.UTF-8").running(arguments)
        #expect(korean.stderr.contains("JSON을 출력하지 않습니다"))
    }

    @Test func theStockScreenFromAPipePrintsResultsOnly() async throws {
        let sandbox = try JuiceSandbox()
        let result = try await sandbox.running(["stock", "edit"], input: "kiwi 6\n- kiwi 7\n- kiwi 2\napply\ny\n")
        #expect(result.status == 0)
        #expect(result.stdout == "🥝 kiwi 10 → 6\n🥝 kiwi 10 → 4\n🥝 kiwi 10 → 4\nStock saved.\n", "\(result.stdout)")
        // The draft holds 6 while the store still holds 10: the message names the draft.
        #expect(result.stderr == "Error: cannot remove 7 kiwi: only 6 left in the draft; remove at most 6.\n", "\(result.stderr)")
        let korean = try await JuiceSandbox(language: "ko_KR.UTF-8").running(["stock", "edit"], input: "키위 6\n- 키위 7\ncancel\n")
        #expect(korean.stderr.contains("초안에 6개만 남아 있으니"), "\(korean.stderr)")
        #expect(korean.stdout == "🥝 키위 10 → 6\n초안을 버렸습니다. 재고는 그대로입니다.\n", "\(korean.stdout)")
    }

    /// A webhook subscriber its endpoint stopped with 410 Gone shows that as its STATE.
    @Test func aStoppedSubscribersStateSaysSo() async throws {
        let sandbox = try JuiceSandbox()
        let config = try sandbox.write(
            #"{"subscribers": [{"type": "webhook", "name": "shop", "url": "http://127.0.0.1:9/hook"}]}"#, to: "hook.json")
        #expect(try await sandbox.running(["stock", "--config", config]).status == 0)
        do {
            let store = try SQLiteStore(path: sandbox.storePath)
            try store.setRetryState(
                DeliveryRetryState(sequence: 1, attempts: 1, nextAttemptAt: 0, lastError: "answered 410 Gone", disabled: true), for: "shop")
        }
        let table = try await sandbox.running(["subscribers", "--config", config])
        #expect(table.status == 0, "\(table.stderr)")
        let row = try #require(table.stdout.split(separator: "\n").first { $0.hasPrefix("shop") })
        #expect(row.contains("stopped (410 Gone)"), "\(table.stdout)")
        #expect(!row.contains("enabled"))
        let korean = try await sandbox.running(["subscribers", "--config", config, "--lang", "ko"])
        #expect(korean.stdout.contains("멈춤 (410 Gone)"), "\(korean.stdout)")
    }
}

/// An argument that is not valid UTF-8 is refused, not read with U+FFFD in its place
/// (two different file names would then name one store).
@Suite(.tags(.process), .notInUnitRun, .offPool) struct UndecodableArgumentTests {
    @Test func aPathThatIsNotUTF8IsRefusedAndNothingIsCreated() throws {
        let sandbox = try JuiceSandbox()
        let directory = sandbox.root + "/work/u8"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        // The shell's printf makes the byte 0xFF, which a Swift String cannot carry.
        let running = try sandbox.start(
            ["-c", #"exec "$0" --store "$(printf 'u8/\377.db')" stock add kiwi 1"#, JuiceSandbox.binary], inputFile: "/dev/null",
            executable: "/bin/sh")
        let status = running.finish()
        #expect(status == 64, "\(running.stderr)")
        #expect(running.stderr.hasPrefix("Error: argument 2 is not valid UTF-8"), "\(running.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).isEmpty)
    }
}
