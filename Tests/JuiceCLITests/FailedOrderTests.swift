import Foundation
import JuiceTestSupport
import Testing

/// A failed `juice order` (exit 1): it never asks a question (nobody can answer one
/// there), it says what is short and the command that adds it, and under `--quiet` it
/// still says, in one line on stderr, that the order was not made.
@Suite(.tags(.process), .notInUnitRun, .offPool) struct FailedOrderTests {
    @Test func quietFailureIsOneLineOnStderr() async throws {
        let sandbox = try JuiceSandbox()
        let result = try await sandbox.running(["order", "strawberry", "--quiet"])
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(
            result.stderr == "Error: strawberry juice not made: short of strawberry 6; add it with 'juice stock add strawberry 6'.\n",
            "\(result.stderr)")

        let korean = try await JuiceSandbox(language: "ko_KR.UTF-8").running(["order", "strawberry-banana", "--count", "2", "-q"])
        #expect(korean.status == 1)
        #expect(korean.stdout.isEmpty)
        #expect(korean.stderr == "오류: 딸바쥬스 2잔 주문에 실패했습니다. 부족: 딸기 10개. 'juice stock add strawberry 10'로 채우세요.\n", "\(korean.stderr)")
    }

    @Test func withoutANotifierOneLineWithTheFixAndNoQuestion() async throws {
        let sandbox = try JuiceSandbox()
        let config = try sandbox.write(#"{"subscribers": []}"#, to: "plain.json")
        let english = try await sandbox.running(["order", "strawberry", "--config", config])
        #expect(english.status == 1)
        #expect(english.stdout == "Not enough fruit: short of strawberry 6. Add it with 'juice stock add strawberry 6', then order again.\n")
        let korean = try await sandbox.running(["order", "strawberry", "--config", config, "--lang", "ko"])
        #expect(korean.stdout == "재료가 모자라요. 부족: 딸기 6개. 'juice stock add strawberry 6'로 채운 뒤 다시 주문하세요.\n")
        #expect(!english.stdout.contains("?") && !korean.stdout.contains("?"))
    }

    /// Several fruits short: one `stock set` that brings each to what the order needs.
    @Test func severalShortFruitsGetOneSetCommand() async throws {
        let sandbox = try JuiceSandbox()
        try await sandbox.running(["stock", "set", "strawberry=4", "banana=0"])
        let result = try await sandbox.running(["order", "strawberry-banana", "--count", "2"])
        #expect(result.status == 1)
        #expect(result.stdout.hasSuffix("Add it with 'juice stock set strawberry=20 banana=2', then order again.\n"), "\(result.stdout)")
        #expect(try await sandbox.running(["stock", "set", "strawberry=20", "banana=2"]).status == 0)
        #expect(try await sandbox.running(["order", "strawberry-banana", "--count", "2"]).status == 0)
    }

    @Test func jsonKeepsStdoutForTheResult() async throws {
        let sandbox = try JuiceSandbox()
        let result = try await sandbox.running(["order", "strawberry", "--json"])
        #expect(result.status == 1)
        let object = try #require(try result.json() as? [String: Any])
        #expect(object["result"] as? String == "insufficient")
        #expect(!result.stdout.contains("juice stock add"))
    }

    /// The order-size limit names each juice's own maximum: what a full stock of
    /// 1,000,000 of every fruit makes.
    @Test(arguments: [
        ("strawberry", "62501", "at most 62,500 can be made at once (each takes strawberry 16"),
        ("banana", "500001", "at most 500,000 can be made at once"),
        ("strawberry-banana", "99999999999999999999", "at most 100,000 can be made at once"),
    ])
    func tooLargeAnOrderNamesTheJuicesMaximum(juice: String, count: String, message: String) async throws {
        let sandbox = try JuiceSandbox()
        try await sandbox.running(["stock"])
        let before = sandbox.storeBytes()
        let result = try await sandbox.running(["order", juice, "--count", count])
        #expect(result.status == 65, "\(result.stderr)")
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1)
        #expect(sandbox.storeBytes() == before)
    }

    @Test func tooLargeAnOrderInKorean() async throws {
        let result = try await JuiceSandbox(language: "ko_KR.UTF-8").running(["order", "딸기쥬스", "--count", "62501"])
        #expect(result.status == 65)
        #expect(result.stderr.contains("한 번에 최대 62,500잔까지"), "\(result.stderr)")
    }
}
