import Foundation
import JuiceTestSupport
import Testing

/// `juice shell` driven through piped standard input, as a script would: the
/// transcript a person reads and the stock that was stored. From a pipe a screen
/// prints results only (README): no stock line, menu, hint, prompt or question.
@Suite(.tags(.process), .notInUnitRun, .offPool) struct ShellSessionTests {
    @Test func orderByNumberMakesOneJuiceAndReportsOnlyTheChangedFruit() throws {
        let sandbox = try JuiceSandbox()
        let result = try sandbox.run(["shell"], input: "7\nq\n")
        #expect(result.status == 0)
        #expect(result.stderr.isEmpty, "\(result.stderr)")
        let out = result.stdout
        #expect(occurrences(of: "Here's your mango-kiwi juice! Enjoy!", in: out) == 1, "\(out)")
        #expect(out.contains("🥝 kiwi 10 → 9\n🥭 mango 10 → 8\n"))
        // Only the changed fruits; piped input: no stock line, menu, hint or prompt.
        #expect(out == "Here's your mango-kiwi juice! Enjoy!\n🥝 kiwi 10 → 9\n🥭 mango 10 → 8\n", "\(out)")
        #expect(!out.contains("Stock:") && !out.contains("7  mango-kiwi juice") && !out.contains("order> "))
        #expect(try sandbox.stock() == ["strawberry": 10, "banana": 10, "pineapple": 10, "kiwi": 9, "mango": 8])
        #expect(try sandbox.journal().count == 3)
    }

    @Test func idAndKoreanNameOrderTheSameJuice() throws {
        let sandbox = try JuiceSandbox(language: "ko_KR.UTF-8")
        let result = try sandbox.run(["shell"], input: "mango-kiwi\n망고키위쥬스\nquit\n")
        #expect(result.status == 0)
        #expect(occurrences(of: "망고키위쥬스 나왔습니다! 맛있게 드세요!", in: result.stdout) == 2, "\(result.stdout)")
        #expect(!result.stdout.contains("7  망고키위쥬스"), "no menu from a pipe")
        #expect(try sandbox.stock()["mango"] == 6)
    }

    @Test func failedOrderThenYesThenEditApplyThenOrderSucceeds() throws {
        let sandbox = try JuiceSandbox()
        let result = try sandbox.run(["shell"], input: "1\ny\nstrawberry 20\napply\ny\n1\nq\n")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.isEmpty, "\(result.stderr)")
        let out = result.stdout
        // The transcript, in order: the results only (no question, title or stock line from a pipe).
        let steps = [
            "Not enough fruit. Edit the stock?", "  🍓 strawberry: 6 short",
            "🍓 strawberry 10 → 20", "Stock saved.",
            "Here's your strawberry juice! Enjoy!", "🍓 strawberry 20 → 4",
        ]
        var from = out.startIndex
        for step in steps {
            let found = out.range(of: step, range: from..<out.endIndex)
            #expect(found != nil, "missing, or out of order: \(step)\n\(out)")
            if let found { from = found.upperBound }
        }
        for banner in ["(y/N)", "Stock screen", "Apply these changes?", "Stock:"] {
            #expect(!out.contains(banner), "\(banner) from a pipe: \(out)")
        }
        #expect(try sandbox.stock() == ["strawberry": 4, "banana": 10, "pineapple": 10, "kiwi": 10, "mango": 10])
        // orderFailed; the applied edit (one stockChanged); juiceMade + its stockChanged.
        let types = try sandbox.journal().map { $0["type"] as? String ?? "" }
        #expect(
            types == [
                "juicemaker.order.failed", "juicemaker.stock.changed",
                "juicemaker.juice.made", "juicemaker.stock.changed",
            ])
    }

    @Test func failedOrderAnsweredNoStaysOnTheOrderScreen() throws {
        let sandbox = try JuiceSandbox()
        let result = try sandbox.run(["shell"], input: "strawberry\nn\n2\nq\n")
        #expect(result.status == 0)
        #expect(!result.stdout.contains("Stock screen"))
        #expect(result.stdout.contains("Here's your banana juice! Enjoy!"))
        #expect(try sandbox.stock()["strawberry"] == 10)
    }

    /// From a pipe the question is not shown (results only), but the answer still counts.
    /// On a terminal it is: `TerminalSessionTests.quietAsksTheWholeSeedQuestionInKorean`.
    @Test func quietFromAPipeTakesTheAnswerWithoutShowingTheQuestion() throws {
        let sandbox = try JuiceSandbox(language: "ko_KR.UTF-8")
        let result = try sandbox.run(["shell", "--quiet"], input: "딸기쥬스\n예\n딸기 16\n적용\n네\n딸기\nq\n")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stdout.contains("재고를 수정할까요?"), "\(result.stdout)")
        #expect(result.stdout.contains("재고를 저장했습니다."))
        #expect(try sandbox.stock()["strawberry"] == 0)
    }

    @Test func endOfInputLeavesLikeQuit() throws {
        let sandbox = try JuiceSandbox()
        let result = try sandbox.run(["shell"], input: "banana")
        #expect(result.status == 0)
        #expect(result.stdout.contains("Here's your banana juice! Enjoy!"))
        #expect(try sandbox.stock()["banana"] == 8)
    }

    @Test func badLinesAreRefusedOneLineEachAndChangeNothing() throws {
        let sandbox = try JuiceSandbox()
        let result = try sandbox.run(["shell"], input: "9\n0\nmango-kiwii\nlemonade\n\nq\n")
        #expect(result.status == 0)
        let errors = result.stderr.split(separator: "\n")
        #expect(errors.count == 4, "\(result.stderr)")
        #expect(errors.allSatisfy { $0.hasPrefix("Error: ") })
        #expect(result.stderr.contains("there is no juice number 9"))
        #expect(result.stderr.contains("Did you mean 'mango-kiwi'?"))
        #expect(result.stderr.contains("unknown juice 'lemonade'"))
        #expect(try sandbox.journal().isEmpty)
        #expect(try sandbox.stock() == ["strawberry": 10, "banana": 10, "pineapple": 10, "kiwi": 10, "mango": 10])
    }

    @Test func withoutANotifierTheShellShowsTheSameLines() throws {
        let sandbox = try JuiceSandbox()
        let config = try sandbox.write(#"{ "subscribers": [] }"#, to: "quiet.json")
        let result = try sandbox.run(["shell", "--config", config], input: "7\nq\n")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(occurrences(of: "Here's your mango-kiwi juice! Enjoy!", in: result.stdout) == 1, "\(result.stdout)")
        #expect(result.stdout.contains("🥝 kiwi 10 → 9\n🥭 mango 10 → 8\n"))
    }

    @Test func helpDescribesTheCommand() throws {
        let sandbox = try JuiceSandbox()
        let result = try sandbox.run(["shell", "--help"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("USAGE: juice shell"))
        #expect(result.stdout.contains("order screen"))
    }
}

/// Ctrl-C (SIGINT) with piped input: the screens leave with 130, keeping what was
/// stored and storing nothing half-way.
@Suite(.tags(.process), .notInUnitRun, .offPool) struct InterruptedSessionTests {
    @Test func ctrlCInTheShellKeepsTheFinishedOrder() throws {
        let sandbox = try JuiceSandbox()
        let shell = try sandbox.start(["shell"])
        try shell.type("7\n")
        #expect(shell.wait(until: { $0.contains("Enjoy!") }))
        #expect(shell.interrupt() == 130)
        #expect(try sandbox.stock()["kiwi"] == 9)
        #expect(try sandbox.journal().count == 3)
    }

    @Test func ctrlCInTheStockScreenStoresNothing() throws {
        let sandbox = try JuiceSandbox()
        let screen = try sandbox.start(["stock", "edit"])
        try screen.type("kiwi 20\n")
        #expect(screen.wait(until: { $0.contains("🥝 kiwi 10 → 20") }))
        #expect(screen.interrupt() == 130)
        #expect(try sandbox.stock()["kiwi"] == 10)
        #expect(try sandbox.journal().isEmpty)
    }
}
