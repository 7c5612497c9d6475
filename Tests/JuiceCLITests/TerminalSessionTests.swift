import Foundation
import Testing

/// `juice shell` on a pseudo-terminal (`script` from util-linux opens one): the
/// terminal path shows prompts and colour, and Ctrl-C typed on the terminal leaves
/// with status 130 after the order already made was stored.
@Suite struct TerminalSessionTests {
    private static let script = "/usr/bin/script"

    /// `script -q -e -c "juice …" /dev/null`: the child's stdin, stdout and stderr are
    /// a terminal; script passes the child's exit status on (`-e`).
    private func startOnTerminal(_ sandbox: JuiceSandbox, _ command: String) throws -> RunningJuice {
        try sandbox.start(["-q", "-e", "-c", "\(JuiceSandbox.binary) \(command)", "/dev/null"], executable: Self.script)
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: script)))
    func promptsAndColourOnATerminal() throws {
        let sandbox = try JuiceSandbox()
        let shell = try startOnTerminal(sandbox, "shell")
        #expect(shell.wait(until: { $0.contains("order> ") }), "\(shell.stdout)")
        try shell.type("7\n")
        #expect(shell.wait(until: { $0.contains("Enjoy!") }))
        try shell.type("\u{04}")  // Ctrl-D: the end of input leaves like quit
        #expect(shell.finish() == 0)
        let out = shell.stdout
        #expect(out.contains("\u{1B}[1;32mHere's your mango-kiwi juice! Enjoy!\u{1B}[0m"), "\(out)")
        #expect(occurrences(of: "order> ", in: out) == 2)
        #expect(try sandbox.stock()["kiwi"] == 9)
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: script)))
    func ctrlCLeavesCleanlyWith130() throws {
        let sandbox = try JuiceSandbox()
        let shell = try startOnTerminal(sandbox, "shell")
        #expect(shell.wait(until: { $0.contains("order> ") }))
        try shell.type("banana\n")
        #expect(shell.wait(until: { occurrences(of: "order> ", in: $0) == 2 }))
        try shell.type("\u{03}")  // Ctrl-C: the terminal sends SIGINT
        #expect(shell.finish() == 130)
        #expect(try sandbox.stock()["banana"] == 8)
        #expect(try sandbox.journal().count == 2, "the order is whole: juiceMade and its stockChanged")
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: script)))
    func stockScreenOnATerminalShowsItsPrompt() throws {
        let sandbox = try JuiceSandbox(language: "ko_KR.UTF-8")
        let screen = try startOnTerminal(sandbox, "stock edit")
        #expect(screen.wait(until: { $0.contains("재고> ") }))
        try screen.type("키위 12\n")
        #expect(screen.wait(until: { $0.contains("🥝 키위 10 → 12") }))
        try screen.type("적용\n")
        #expect(screen.wait(until: { $0.contains("이대로 적용할까요? (y/N) ") }))
        try screen.type("y\n")
        #expect(screen.wait(until: { $0.contains("재고를 저장했습니다.") }))
        #expect(screen.finish() == 0)
        #expect(try sandbox.stock()["kiwi"] == 12)
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: script)))
    func noColourForADumbTerminal() throws {
        let sandbox = try JuiceSandbox()
        sandbox.environment["TERM"] = "dumb"
        let shell = try startOnTerminal(sandbox, "shell")
        #expect(shell.wait(until: { $0.contains("order> ") }), "\(shell.stdout)")
        try shell.type("7\n")
        #expect(shell.wait(until: { $0.contains("Enjoy!") }))
        try shell.type("\u{04}")
        #expect(shell.finish() == 0)
        #expect(shell.stdout.contains("Here's your mango-kiwi juice! Enjoy!"))
        #expect(!shell.stdout.contains("\u{1B}["), "TERM=dumb: no colour: \(shell.stdout)")
    }

    /// On a terminal the screen shows its question; under --quiet (no notifier alert)
    /// the whole seed question.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: script)))
    func quietAsksTheWholeSeedQuestionInKorean() throws {
        let sandbox = try JuiceSandbox(language: "ko_KR.UTF-8")
        let shell = try startOnTerminal(sandbox, "shell --quiet")
        #expect(shell.wait(until: { $0.contains("주문> ") }))
        try shell.type("딸기쥬스\n")
        #expect(shell.wait(until: { $0.contains("재료가 모자라요. 재고를 수정할까요? (y/N) ") }), "\(shell.stdout)")
        try shell.type("n\n")
        #expect(shell.wait(until: { occurrences(of: "주문> ", in: $0) == 2 }))
        try shell.type("\u{04}")
        #expect(shell.finish() == 0)
        #expect(try sandbox.stock()["strawberry"] == 10)
    }

    /// On a terminal the notifier's alert asks the seed's question and the screen adds `(y/N)`.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: script)))
    func aFailedOrderAsksOnATerminal() throws {
        let sandbox = try JuiceSandbox()
        sandbox.environment["NO_COLOR"] = "1"
        let shell = try startOnTerminal(sandbox, "shell")
        #expect(shell.wait(until: { $0.contains("order> ") }))
        try shell.type("1\n")
        #expect(shell.wait(until: { $0.contains("(y/N) ") }), "\(shell.stdout)")
        #expect(shell.stdout.contains("Not enough fruit. Edit the stock?\r\n  🍓 strawberry: 6 short\r\n(y/N) "), "\(shell.stdout)")
        try shell.type("n\n\u{04}")
        #expect(shell.finish() == 0)
    }
}
