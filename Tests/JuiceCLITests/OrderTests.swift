import Foundation
import JuiceTestSupport
import Testing

/// `juice order` as a person and a script meet it: the seed's messages in both
/// languages (shown by the notifier), exit codes 0 and 1, persistence, atomicity.
@Suite(.tags(.process), .notInUnitRun, .offPool) struct OrderTests {
    @Test func koreanSuccessShowsTheSeedMessageOnce() throws {
        let sandbox = try JuiceSandbox(language: "ko_KR.UTF-8")
        try sandbox.run(["stock", "set", "strawberry=16"])
        let result = try sandbox.run(["order", "딸기쥬스"])
        #expect(result.status == 0)
        #expect(result.stdout.components(separatedBy: "딸기쥬스 나왔습니다! 맛있게 드세요!").count == 2, "\(result.stdout)")
        #expect(result.stderr.isEmpty)
    }

    /// `juice order` cannot take an answer, so the seed's alert does not ask
    /// "재고를 수정할까요?": it says what is short and the command that adds it.
    @Test func koreanFailureStatesTheShortageAndTheFixAndExits1() throws {
        let sandbox = try JuiceSandbox(language: "ko_KR.UTF-8")
        let result = try sandbox.run(["order", "strawberry"])
        #expect(result.status == 1)
        #expect(result.stdout == "재료가 모자라요.\n  🍓 딸기 6개 부족\n'juice stock add strawberry 6'로 채운 뒤 다시 주문하세요.\n", "\(result.stdout)")
        #expect(!result.stdout.contains("?"))
        #expect(result.stderr.isEmpty)
    }

    @Test func englishSuccessAndFailure() throws {
        let sandbox = try JuiceSandbox(language: "en_US.UTF-8")
        let made = try sandbox.run(["order", "banana"])
        #expect(made.status == 0)
        #expect(made.stdout.contains("banana juice"))
        #expect(!made.stdout.contains("나왔습니다"))
        let failed = try sandbox.run(["order", "strawberry"])
        #expect(failed.status == 1)
        #expect(
            failed.stdout == "Not enough fruit.\n  🍓 strawberry: 6 short\nAdd it with 'juice stock add strawberry 6', then order again.\n",
            "\(failed.stdout)")
        #expect(!failed.stdout.contains("Edit the stock?"))
    }

    @Test func langOptionOverridesTheLocale() throws {
        let sandbox = try JuiceSandbox(language: "en_US.UTF-8")
        try sandbox.run(["stock", "set", "strawberry=16"])
        let result = try sandbox.run(["order", "strawberry", "--lang", "ko"])
        #expect(result.stdout.contains("딸기쥬스 나왔습니다! 맛있게 드세요!"))
    }

    @Test func stockPersistsAcrossInvocations() throws {
        let sandbox = try JuiceSandbox()
        #expect(try sandbox.run(["order", "mango-kiwi", "--count", "2"]).status == 0)
        #expect(try sandbox.run(["stock", "add", "banana", "5"]).status == 0)
        let stock = try sandbox.stock()
        #expect(stock == ["strawberry": 10, "banana": 15, "pineapple": 10, "kiwi": 8, "mango": 6])
        #expect(FileManager.default.fileExists(atPath: sandbox.storePath))
    }

    @Test func failedOrderChangesNothing() throws {
        let sandbox = try JuiceSandbox()
        let before = try sandbox.stock()
        let result = try sandbox.run(["order", "strawberry-banana", "--count", "2"])
        #expect(result.status == 1)
        #expect(try sandbox.stock() == before)
    }

    @Test func withoutANotifierTheCommandPrintsOneLine() throws {
        let sandbox = try JuiceSandbox(language: "ko_KR.UTF-8")
        let config = try sandbox.write(#"{"subscribers": []}"#, to: "plain.json")
        let made = try sandbox.run(["order", "banana", "--config", config])
        #expect(made.status == 0)
        #expect(made.stdout == "바나나쥬스 나왔습니다! 맛있게 드세요!\n")
        let quiet = try sandbox.run(["order", "banana", "--config", config, "--quiet"])
        #expect(quiet.status == 0)
        #expect(quiet.stdout.isEmpty)
    }

    @Test func unknownJuiceSuggestsTheClosestName() throws {
        let sandbox = try JuiceSandbox()
        let result = try sandbox.run(["order", "mango-kiwii"])
        #expect(result.status == 65)
        #expect(result.stderr.contains("mango-kiwi"))
        #expect(result.stderr.split(separator: "\n").count == 1)
    }

    @Test func badStockEditsExit65AndChangeNothing() throws {
        let sandbox = try JuiceSandbox()
        let before = try sandbox.stock()
        for arguments in [
            ["stock", "remove", "kiwi", "11"], ["stock", "add", "kiwi", "-3"], ["stock", "add", "kiwy", "3"],
            ["stock", "set", "kiwi=5", "mango=-1"], ["stock", "set", "kiwi=2000000"],
        ] {
            let result = try sandbox.run(arguments)
            #expect(result.status == 65, "\(arguments): \(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1, "\(arguments): \(result.stderr)")
        }
        #expect(try sandbox.stock() == before)
    }

    @Test func stockSetIsOneChange() throws {
        let sandbox = try JuiceSandbox()
        #expect(try sandbox.run(["stock", "set", "strawberry=20", "kiwi=5"]).status == 0)
        #expect(try sandbox.stock()["strawberry"] == 20)
        let events = try sandbox.run(["events", "--json"])
        let lines = events.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        let changeIDs = Set(lines.compactMap { ($0["data"] as? [String: Any])?["changeId"] as? String })
        #expect(lines.count == 2)
        #expect(changeIDs.count == 1)
    }
}
