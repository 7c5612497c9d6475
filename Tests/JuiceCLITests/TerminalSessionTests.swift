import Foundation
import JuiceTestSupport
import Testing

/// `juice shell` on a pseudo-terminal (`script` from util-linux opens one): the
/// terminal path shows prompts and colour, and Ctrl-C typed on the terminal leaves
/// with status 130 after the order already made was stored. Keys are typed as a
/// terminal sends them (`↑` is ESC [ A); readline edits the line.
@Suite(.tags(.process), .notInUnitRun, .offPool) struct TerminalSessionTests {
    private static let script = "/usr/bin/script"

    /// `script -q -e -c "juice …" /dev/null`: the child's stdin, stdout and stderr are
    /// a terminal; script passes the child's exit status on (`-e`).
    private func startOnTerminal(_ sandbox: JuiceSandbox, _ command: String) throws -> RunningProgram {
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

    // MARK: Line editing (readline)

    private static let up = "\u{1B}[A", left = "\u{1B}[D", ctrlA = "\u{01}", ctrlD = "\u{04}", ctrlE = "\u{05}",
        ctrlU = "\u{15}", ctrlW = "\u{17}"

    /// A sandbox whose terminal is an xterm.
    private func terminalSandbox(language: String = "en_US.UTF-8") throws -> JuiceSandbox {
        let sandbox = try JuiceSandbox(language: language)
        sandbox.environment["TERM"] = "xterm"
        return sandbox
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: script)))
    func arrowUpRecallsTheEarlierOrderAndRunsIt() throws {
        let sandbox = try terminalSandbox()
        let shell = try startOnTerminal(sandbox, "shell")
        #expect(shell.wait(until: { $0.contains("order> ") }))
        try shell.type("7\n")
        #expect(shell.wait(until: { occurrences(of: "mango-kiwi juice! Enjoy!", in: $0) == 1 }))
        // Keys typed before the next prompt reach the terminal in its ordinary mode,
        // which echoes them (as with any readline program): wait for the prompt.
        #expect(shell.wait(until: { occurrences(of: "order> ", in: $0) == 2 }))
        try shell.type(Self.up + "\n")  // ↑ brings back "7"; Enter orders it again
        #expect(
            shell.wait(until: { occurrences(of: "mango-kiwi juice! Enjoy!", in: $0) == 2 && occurrences(of: "order> ", in: $0) == 3 }),
            "\(shell.stdout)")
        try shell.type(Self.ctrlD)
        #expect(shell.finish() == 0)
        #expect(!shell.stdout.contains("^[[A"), "the arrow is a key, not text: \(shell.stdout)")
        #expect(!shell.stdout.contains("Error"), "\(shell.stdout)")
        #expect(try sandbox.stock() == ["strawberry": 10, "banana": 10, "pineapple": 10, "kiwi": 8, "mango": 6])
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: script)))
    func ctrlAEUAndWEditTheLine() throws {
        let sandbox = try terminalSandbox()
        let shell = try startOnTerminal(sandbox, "shell")
        #expect(shell.wait(until: { $0.contains("order> ") }))
        // "anana", to the start, "b", to the end: banana.
        try shell.type("anana" + Self.ctrlA + "b" + Self.ctrlE + "\n")
        #expect(shell.wait(until: { $0.contains("Here's your banana juice! Enjoy!") && occurrences(of: "order> ", in: $0) == 2 }), "\(shell.stdout)")
        // A wrong line wiped out whole: kiwi.
        try shell.type("lemonade" + Self.ctrlU + "kiwi\n")
        #expect(shell.wait(until: { $0.contains("Here's your kiwi juice! Enjoy!") && occurrences(of: "order> ", in: $0) == 3 }), "\(shell.stdout)")
        // Two words rubbed out: pineapple.
        try shell.type("strawberry mango" + Self.ctrlW + Self.ctrlW + "pineapple\n")
        #expect(
            shell.wait(until: { $0.contains("Here's your pineapple juice! Enjoy!") && occurrences(of: "order> ", in: $0) == 4 }), "\(shell.stdout)")
        try shell.type(Self.ctrlD)
        #expect(shell.finish() == 0)
        #expect(!shell.stdout.contains("Error"), "no line was refused: \(shell.stdout)")
        #expect(try sandbox.journal().filter { $0["type"] as? String == "juicemaker.juice.made" }.count == 3)
    }

    /// Korean names are edited by character: ← twice moves over two syllables.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: script)))
    func koreanIsEditedByCharacter() throws {
        let sandbox = try terminalSandbox(language: "ko_KR.UTF-8")
        let shell = try startOnTerminal(sandbox, "shell")
        #expect(shell.wait(until: { $0.contains("주문> ") }))
        try shell.type("망고쥬스" + Self.left + Self.left + "키위\n")
        #expect(shell.wait(until: { $0.contains("망고키위쥬스 나왔습니다! 맛있게 드세요!") && occurrences(of: "주문> ", in: $0) == 2 }), "\(shell.stdout)")
        try shell.type(Self.ctrlD)
        #expect(shell.finish() == 0)
        #expect(try sandbox.stock()["mango"] == 8)
    }

    /// Ctrl-D at the stock screen leaves it (the draft is dropped) for the order
    /// screen, which reads on; each screen recalls its own lines.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: script)))
    func ctrlDInTheStockScreenReturnsToTheOrderScreen() throws {
        let sandbox = try terminalSandbox()
        let shell = try startOnTerminal(sandbox, "shell")
        #expect(shell.wait(until: { $0.contains("order> ") }))
        try shell.type("banana\n")
        #expect(shell.wait(until: { $0.contains("Here's your banana juice! Enjoy!") }))
        try shell.type("stock\n")
        #expect(shell.wait(until: { $0.contains("stock> ") }))
        try shell.type("kiwi 20\n")
        // Keys are typed once the next prompt is out: readline has the terminal then (a
        // Ctrl-D typed while the line discipline is still canonical is an end of file
        // that the switch to raw mode drops).
        #expect(shell.wait(until: { $0.contains("🥝 kiwi 10 → 20") && occurrences(of: "stock> ", in: $0) == 2 }))
        try shell.type(Self.ctrlD)
        #expect(shell.wait(until: { $0.contains("Draft discarded") && occurrences(of: "order> ", in: $0) == 3 }), "\(shell.stdout)")
        // ↑ "stock", ↑ "banana": the order screen's lines, not "kiwi 20".
        try shell.type(Self.up + Self.up + "\n")
        #expect(
            shell.wait(until: { occurrences(of: "Here's your banana juice! Enjoy!", in: $0) == 2 && occurrences(of: "order> ", in: $0) == 4 }),
            "\(shell.stdout)")
        try shell.type(Self.ctrlD)
        #expect(shell.finish() == 0)
        #expect(try sandbox.stock() == ["strawberry": 10, "banana": 6, "pineapple": 10, "kiwi": 10, "mango": 10])
    }

    /// SIGTERM while the prompt waits with a half-typed line: the line is dropped,
    /// the terminal given back, plugins shut down, status 143.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: script)))
    func sigtermAtThePromptLeavesWith143() throws {
        let sandbox = try terminalSandbox()
        // After juice, the terminal's modes as it left them.
        let shell = try startOnTerminal(sandbox, "shell; status=$?; stty -a; exit $status")
        #expect(shell.wait(until: { $0.contains("order> ") }))
        try shell.type("7\n")
        #expect(shell.wait(until: { $0.contains("Enjoy!") }))
        try shell.type("mango")
        #expect(shell.wait(until: { occurrences(of: "order> mango", in: $0) == 1 }), "\(shell.stdout)")
        let juice = try #require(descendant(of: shell.process.processIdentifier, running: JuiceSandbox.binary))
        kill(juice, SIGTERM)
        #expect(shell.finish() == 143)
        let modes = shell.stdout.split(separator: "\n").suffix(6).joined(separator: " ") + " "
        #expect(modes.contains(" icanon ") && modes.contains(" echo "), "line mode and echo are back: \(modes)")
        #expect(try sandbox.stock()["kiwi"] == 9)
        #expect(try sandbox.journal().count == 3, "only the first order")
    }

    /// The process below `parent` (a child, a grandchild…) running `executable`.
    private func descendant(of parent: Int32, running executable: String) -> Int32? {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        var children: [Int32: [Int32]] = [:]
        for entry in entries {
            guard let pid = Int32(entry),
                let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                let close = stat.range(of: ")", options: .backwards)
            else { continue }
            // pid (comm) state ppid …
            let fields = stat[close.upperBound...].split(separator: " ")
            if fields.count > 1, let ppid = Int32(fields[1]) { children[ppid, default: []].append(pid) }
        }
        var queue = children[parent] ?? []
        while !queue.isEmpty {
            let pid = queue.removeFirst()
            if (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe")) == executable { return pid }
            queue += children[pid] ?? []
        }
        return nil
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
