import Foundation
import JuiceTestSupport
import Testing

/// `juice stock edit` driven through standard input: edits stay in a draft until
/// `apply` stores them as one change; `cancel` (or the end of input) stores nothing.
@Suite(.tags(.process), .notInUnitRun, .offPool) struct StockScreenSessionTests {
    private let initial = ["strawberry": 10, "banana": 10, "pineapple": 10, "kiwi": 10, "mango": 10]

    @Test func applyStoresTheWholeDraftAsOneChange() throws {
        let sandbox = try JuiceSandbox()
        let result = try sandbox.run(["stock", "edit"], input: "kiwi 20\n+ mango 3\n- banana 2\n+ kiwi\napply\ny\n")
        #expect(result.status == 0, "\(result.stderr)")
        let out = result.stdout
        #expect(out.contains("🥝 kiwi 10 → 20\n"))
        #expect(out.contains("🥭 mango 10 → 13\n"))
        #expect(out.contains("🍌 banana 10 → 8\n"))
        #expect(out.contains("🥝 kiwi 10 → 21\n"))
        // From a pipe, results only: the question is not shown; the answer still counts.
        #expect(!out.contains("Apply these changes? (y/N)"))
        #expect(!out.contains("Stock screen"))
        #expect(out.contains("Stock saved."))
        #expect(try sandbox.stock() == ["strawberry": 10, "banana": 8, "pineapple": 10, "kiwi": 21, "mango": 13])
        let events = try sandbox.journal()
        #expect(events.count == 3, "one stockChanged per changed fruit")
        let data = events.compactMap { $0["data"] as? [String: Any] }
        #expect(Set(data.compactMap { $0["changeId"] as? String }).count == 1, "one change id")
        #expect(data.allSatisfy { $0["reason"] as? String == "edit" })
        #expect(data.compactMap { $0["fruit"] as? String } == ["banana", "kiwi", "mango"])
    }

    @Test func cancelLeavesTheStoreUnchanged() throws {
        let sandbox = try JuiceSandbox()
        try sandbox.run(["order", "mango-kiwi"])
        let stockBefore = try sandbox.run(["stock", "--json"]).stdout
        let journalBefore = try sandbox.run(["events", "--json"]).stdout
        let result = try sandbox.run(["stock", "edit"], input: "kiwi 20\n+ mango 3\ncancel\n")
        #expect(result.status == 0)
        #expect(result.stdout.contains("Draft discarded; the stock is unchanged."))
        #expect(try sandbox.run(["stock", "--json"]).stdout == stockBefore)
        #expect(try sandbox.run(["events", "--json"]).stdout == journalBefore)
        #expect(try sandbox.journal().count == 3)
    }

    @Test func endOfInputCancels() throws {
        let sandbox = try JuiceSandbox()
        let result = try sandbox.run(["stock", "edit"], input: "kiwi 20\napply\n")
        #expect(result.status == 0)
        // The question got no answer: not applied, then the input ended: discarded.
        #expect(result.stdout.contains("Not applied"))
        #expect(result.stdout.contains("Draft discarded"))
        #expect(try sandbox.stock() == initial)
        #expect(try sandbox.journal().isEmpty)
    }

    @Test func badLinesAreRefusedAndTheDraftStaysAsItWas() throws {
        let sandbox = try JuiceSandbox()
        let lines = [
            "kiwi 20",  // accepted: the draft is kiwi 10 → 20
            "- kiwi 30",  // below zero
            "kiwi -1",  // below zero
            "+ kiwi 999999999",  // above the maximum
            "lemon 3",  // unknown fruit
            "kiwii 3",  // typo: did you mean
            "foo bar baz",  // not a command
            "kiwi x",  // not a number
            "kiwi",  // no quantity
            "apply", "y",
        ]
        let result = try sandbox.run(["stock", "edit"], input: lines.joined(separator: "\n") + "\n")
        #expect(result.status == 0)
        let errors = result.stderr.split(separator: "\n")
        #expect(errors.count == 8, "\(result.stderr)")
        #expect(errors.allSatisfy { $0.hasPrefix("Error: ") })
        #expect(result.stderr.contains("only 20 left in the draft"), "the draft, not the stored stock (10)")
        #expect(result.stderr.contains("above the maximum"))
        #expect(result.stderr.contains("-1 is not a valid amount of kiwi: add or remove 1 or more, set 0 or more."))
        #expect(result.stderr.contains("Did you mean 'kiwi'?"))
        #expect(result.stderr.contains("unknown fruit 'lemon'"))
        // Every refusal left the draft at kiwi 20, and only that was stored: the edit's
        // row, then the notifier's line for the one change, then the confirmation.
        #expect(result.stdout == "🥝 kiwi 10 → 20\n🥝 kiwi 10 → 20\nStock saved.\n", "\(result.stdout)")
        var expected = initial
        expected["kiwi"] = 20
        #expect(try sandbox.stock() == expected)
        #expect(try sandbox.journal().count == 1)
    }

    @Test func answeringNoKeepsTheDraftForALaterApply() throws {
        let sandbox = try JuiceSandbox(language: "ko_KR.UTF-8")
        let result = try sandbox.run(["stock", "edit"], input: "키위 20\n적용\nn\n적용\n예\n")
        #expect(result.status == 0)
        #expect(result.stdout.contains("적용하지 않았습니다. 초안은 그대로입니다"))
        #expect(!result.stdout.contains("이대로 적용할까요? (y/N)"), "no question from a pipe")
        #expect(result.stdout.contains("재고를 저장했습니다."))
        #expect(try sandbox.stock()["kiwi"] == 20)
        #expect(try sandbox.journal().count == 1)
    }

    @Test func applyingNothingSaysSoAndStoresNothing() throws {
        let sandbox = try JuiceSandbox()
        let result = try sandbox.run(["stock", "edit"], input: "kiwi 20\nkiwi 10\napply\ncancel\n")
        #expect(result.stdout.contains("🥝 kiwi 10\n"))
        #expect(result.stdout.contains("Nothing to apply"))
        #expect(try sandbox.journal().isEmpty)
    }

    /// Another process changes kiwi while the draft is open: apply stores nothing,
    /// says so, and keeps the draft (now over the new stock) for a second apply.
    @Test func aConflictKeepsTheDraftForRetry() throws {
        let sandbox = try JuiceSandbox()
        let screen = try sandbox.start(["stock", "edit"])
        // No title from a pipe: the draft began once the first edit is shown.
        try screen.type("kiwi 20\n+ banana 1\n")
        #expect(screen.wait(until: { $0.contains("🍌 banana 10 → 11") }))
        #expect(try sandbox.run(["order", "mango-kiwi"]).status == 0)
        try screen.type("apply\ny\n")
        #expect(screen.wait(until: { $0.contains("9 → 20") }), "\(screen.stdout)\n\(screen.stderr)")
        #expect(screen.stderr.contains("another juice process changed kiwi meanwhile; nothing was saved"))
        #expect(try sandbox.stock()["kiwi"] == 9, "nothing stored by the conflicting apply")
        try screen.type("apply\ny\n")
        #expect(screen.wait(until: { $0.contains("Stock saved.") }))
        #expect(screen.finish() == 0)
        #expect(try sandbox.stock() == ["strawberry": 10, "banana": 11, "pineapple": 10, "kiwi": 20, "mango": 8])
    }

    @Test func helpDescribesTheCommand() throws {
        let sandbox = try JuiceSandbox(language: "ko_KR.UTF-8")
        let result = try sandbox.run(["stock", "edit", "--help"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("juice stock edit"))
        #expect(result.stdout.contains("재고 수정 화면"))
        #expect(try sandbox.run(["stock", "--help"]).stdout.contains("edit"))
    }
}
