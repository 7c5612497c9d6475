import CommandPlugin
import Foundation
import JuiceJSON
import JuiceDelivery
import JuiceMakerCore
import JuiceMakerPluginKit
import JuiceTestSupport
import Testing

/// The command subscriber with real programs (`/bin/sh` scripts) over an in-memory store.
@Suite(.tags(.process), .notInUnitRun, .offPool) struct CommandSubscriberTests {
    /// A command subscriber running `script` in `directory` (`$OUT` is its file `out`),
    /// attached to a new delivery rig.
    private func attachedSubscriber(
        _ script: String, in directory: TemporaryDirectory, events: [String]? = nil
    ) throws -> (plugin: Delivered<CommandSubscriber>, rig: Rig) {
        let rig = Rig.delivery()
        var values: [(key: String, value: JSONValue)] = [
            ("command", .array([.string("/bin/sh"), .string("-c"), .string(script)])),
            ("environment", .object([JSONMember(key: "OUT", value: .string(directory.file("out")))])),
            ("workingDirectory", .string(directory.path)),
            ("retrySchedule", .array(Array(repeating: .number(0.01), count: 10))),
        ]
        if let events { values.append(("events", .array(events.map { .string($0) }))) }
        let plugin = try Delivered(CommandSubscriber.self, configuration: section(values), context: rig.context(name: "feed"))
        try plugin.attach(to: rig.host)
        return (plugin, rig)
    }

    private func received(_ directory: TemporaryDirectory, file: String = "out") throws -> [EventEnvelope] {
        let text = (try? String(contentsOfFile: directory.file(file), encoding: .utf8)) ?? ""
        return try text.split(separator: "\n").map { try CloudEventFormat.decode(String($0)) }
    }

    @Test func everyEventArrivesAsOneJSONLineInOrder() async throws {
        let directory = try TemporaryDirectory()
        let (plugin, rig) = try attachedSubscriber(#"while IFS= read -r line; do printf '%s\n' "$line" >> "$OUT"; done"#, in: directory)
        for juice in [Juice.mangoKiwi, .banana, .strawberryBanana, .kiwi] { try rig.maker.make(juice) }
        try rig.maker.add(5, of: .mango)
        let delivery = try #require(plugin.delivery)
        #expect(await delivery.deliverPending() == .caughtUp)
        await plugin.shutdown(deadline: generousDeadline())
        #expect(try received(directory) == rig.journal())
        #expect(try rig.store.cursor(named: "feed") == rig.store.lastSequence())
    }

    /// What the program writes to stderr is echoed: control characters escaped, each
    /// line cut at 80 characters, so a program cannot steer the person's terminal.
    @Test func theProgramsStderrIsEscapedAndCut() async throws {
        let directory = try TemporaryDirectory()
        let script = #"printf 'boom\033]0;PWN\007\n' >&2; printf '%0300d\n' 0 >&2; cat > "$OUT""#
        let (plugin, rig) = try attachedSubscriber(script, in: directory)
        try rig.maker.make(.banana)
        let delivery = try #require(plugin.delivery)
        #expect(await delivery.deliverPending() == .caughtUp)
        #expect(await eventually { rig.errors.all.contains { $0.hasPrefix("sh: " + String(repeating: "0", count: 80)) } }, "\(rig.errors.all)")
        await plugin.shutdown(deadline: generousDeadline())
        #expect(rig.errors.all.contains("sh: boom\\e]0;PWN\\u{7}"), "\(rig.errors.all)")
        #expect(rig.errors.all.contains("sh: " + String(repeating: "0", count: 80) + "…"), "\(rig.errors.all)")
        #expect(rig.errors.all.allSatisfy { !$0.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) } })
    }

    @Test func aProgramIgnoringSIGTERMDoesNotOutliveShutdown() async throws {
        let directory = try TemporaryDirectory()
        // Ignores SIGTERM, takes its input, then would stay for a minute.
        let script = #"echo $$ > pid; trap '' TERM; cat >> "$OUT"; exec sleep 60"#
        let (plugin, rig) = try attachedSubscriber(script, in: directory)
        try rig.maker.make(.banana)
        let delivery = try #require(plugin.delivery)
        #expect(await delivery.deliverPending() == .caughtUp)
        await plugin.shutdown(deadline: .now + .seconds(1))

        let text = try String(contentsOfFile: directory.file("pid"), encoding: .utf8)
        let pid = try #require(Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)))
        // Bounded wait for the kernel to finish it off and the parent to reap it. Polled:
        // the program is the plugin's child, reaped by Foundation's `Process` inside
        // it, and no handle on its exit reaches the test (waiting on the pid would race
        // that reaper).
        let gone = await eventually(within: .seconds(10)) { kill(pid, 0) != 0 && errno == ESRCH }
        #expect(gone, "program \(pid) still runs after shutdown")
        if !gone { kill(pid, SIGKILL) }
    }

    /// What the program started and left running ends with it: when it exits by
    /// itself, and at shutdown. (A grandchild killed but not yet reaped by whoever
    /// inherited it is a zombie: gone as far as running goes.)
    @Test func theProgramsGrandchildrenDoNotOutliveIt() async throws {
        let directory = try TemporaryDirectory()
        // Each run starts a grandchild that would stay 1000 s; the first run exits after one line.
        let script =
            #"sleep 1000 & echo $! >> grandchildren; IFS= read -r line; printf '%s\n' "$line" >> "$OUT"; [ -e once ] || { touch once; exit 3; }; cat >> "$OUT""#
        let (plugin, rig) = try attachedSubscriber(script, in: directory)
        try rig.maker.make(.banana)
        let delivery = try #require(plugin.delivery)
        #expect(await delivery.deliverPending(waitingAtMost: .seconds(30)) == .caughtUp)
        func isRunning(_ pid: Int32) -> Bool {
            let state = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8))?.split(separator: ")").last?.split(separator: " ").first
            return state != nil && state != "Z" && state != "X"
        }
        func grandchildren() -> [Int32] {
            ((try? String(contentsOfFile: directory.file("grandchildren"), encoding: .utf8)) ?? "").split(separator: "\n").compactMap { Int32($0) }
        }
        // The first program exited after one line: its grandchild is gone, before any
        // shutdown; the second program's still runs.
        #expect(grandchildren().count == 2)
        #expect(await eventually(within: .seconds(30)) { !isRunning(grandchildren()[0]) }, "\(grandchildren())")
        #expect(isRunning(grandchildren()[1]))
        await plugin.shutdown(deadline: .now + .seconds(2))
        let left = grandchildren().filter(isRunning)
        #expect(await eventually(within: .seconds(10)) { grandchildren().allSatisfy { !isRunning($0) } }, "still running: \(left)")
        for pid in grandchildren() where isRunning(pid) { kill(pid, SIGKILL) }
    }

    /// A program that floods its stderr (5 MB in 5,006 lines) is relayed bounded: the
    /// first lines, then one line saying how many were not shown; shown and cut add
    /// up to every line written, all reported by the time shutdown returns.
    @Test func aFloodOfStderrIsBoundedAndSummarised() async throws {
        let directory = try TemporaryDirectory()
        // A file says the flood is written (the pipe holds the rest): shutting down before
        // that would stop the program half-way, and lines never written cannot be counted.
        let script = #"head -c 5000000 /dev/zero | tr '\0' x | fold -w 999 >&2; echo done >&2; : > "$OUT.flooded"; cat >> "$OUT""#
        let (plugin, rig) = try attachedSubscriber(script, in: directory)
        try rig.maker.make(.banana)
        let delivery = try #require(plugin.delivery)
        #expect(await delivery.deliverPending() == .caughtUp)
        #expect(await eventually(within: .seconds(60)) { rig.errors.all.count >= 20 })
        #expect(await eventually { FileManager.default.fileExists(atPath: directory.file("out.flooded")) })
        // The program's stderr ends with it, and shutdown returns only once its relay has
        // read it to the end: the last count of what was cut has been reported by then
        // (earlier counts come before each line shown after a cut, so the presence of a
        // count says nothing about the last).
        await plugin.shutdown(deadline: generousDeadline())
        let reported = rig.errors.all.filter { $0.hasPrefix("sh: ") }
        let shown = reported.filter { $0.hasPrefix("sh: x") }.count
        let cut = reported.compactMap { line -> Int? in
            guard line.hasSuffix("not shown"), let count = line.split(separator: " ").dropFirst().first else { return nil }
            return Int(count)
        }
        #expect(shown <= 40, "\(shown) lines shown")
        #expect(!cut.isEmpty && cut.count <= shown, "\(reported.suffix(3))")
        // 5,005 lines of 999 x, and the last 5 x with "done".
        #expect(shown + cut.reduce(0, +) == 5_006, "every line is shown or counted")
    }

    @Test func aProgramThatExitsIsRestartedAndMissesNothing() async throws {
        let directory = try TemporaryDirectory()
        // Reads three lines, then exits with status 3; says on stderr that it started.
        let script = #"""
            echo "started" >&2; echo x >> starts; n=0
            while IFS= read -r line; do printf '%s\n' "$line" >> "$OUT"; n=$((n+1)); [ $n -ge 3 ] && exit 3; done
            """#
        let (plugin, rig) = try attachedSubscriber(script, in: directory, events: ["juiceMade"])
        for _ in 0..<7 { try rig.maker.make(.banana) }
        let delivery = try #require(plugin.delivery)
        let made = try rig.journal().filter { $0.event.kind == .juiceMade }
        let count = made.count
        #expect(
            await delivery.wait(until: generousDeadline()) { _, statistics in statistics.delivered == count },
            "\(rig.errors.all) \(delivery.phase) \(delivery.statistics) \((try? received(directory))?.count ?? -1)")
        // Shutdown closes the program's input and waits for it to exit: by then it has
        // written every line it read.
        await plugin.shutdown(deadline: generousDeadline())
        #expect(try received(directory).map(\.id) == made.map(\.id))

        let starts = try String(contentsOfFile: directory.file("starts"), encoding: .utf8).split(separator: "\n").count
        #expect(starts == 3)
        #expect(rig.errors.all.filter { $0.contains("sh exited with status 3") }.count >= 2)
        #expect(rig.errors.all.contains { $0 == "sh: started" })
        #expect(delivery.statistics.delivered == 7)
    }

    @Test func aProgramThatClosesItsInputFailsTheAttemptWithoutSIGPIPE() async throws {
        let directory = try TemporaryDirectory()
        // Closes its stdin at once and stays: every write finds no reader (EPIPE).
        let (plugin, rig) = try attachedSubscriber("exec 0<&-; exec sleep 30", in: directory)
        try rig.maker.make(.banana)
        let delivery = try #require(plugin.delivery)
        // Eleven refused attempts each, then dead letters: this process is still here to see it.
        #expect(await delivery.deliverPending(waitingAtMost: .seconds(5)) == .caughtUp)
        await plugin.shutdown(deadline: .now + .seconds(1))  // the program never reads end-of-file: SIGTERM
        #expect(delivery.statistics.deadLettered == 2)
        #expect(rig.errors.all.contains { $0.contains("sh: the program") && $0.contains("input") }, "\(rig.errors.all)")
    }

    @Test func aMissingProgramIsAConfigurationErrorNamingTheField() throws {
        let rig = Rig.delivery()
        do {
            _ = try CommandSubscriber(
                configuration: section([("command", .array([.string("no-such-program-juice")]))]), context: rig.context())
            Issue.record("expected a configuration error")
        } catch {
            #expect(error.path == "subscribers[0].command[0]")
        }
        #expect(throws: ConfigurationError.self) {
            try CommandSubscriber(configuration: section([("command", .array([]))]), context: rig.context())
        }
    }

    @Test(arguments: [JSONValue.number(0), .number(-1), .number(3_601), .string("10")])
    func aTimeoutOutsideItsRangeIsAConfigurationError(timeout: JSONValue) throws {
        let rig = Rig.delivery()
        do {
            _ = try CommandSubscriber(
                configuration: section([("command", .array([.string("/bin/cat")])), ("timeoutSeconds", timeout)]),
                context: rig.context())
            Issue.record("expected a configuration error")
        } catch {
            #expect(error.path == "subscribers[0].timeoutSeconds")
        }
        let plugin = try CommandSubscriber(
            configuration: section([("command", .array([.string("/bin/cat")])), ("timeoutSeconds", .number(0.25))]),
            context: rig.context())
        #expect(plugin.timeoutSeconds == 0.25)
        #expect(
            try CommandSubscriber(configuration: section([("command", .array([.string("/bin/cat")]))]), context: rig.context()).timeoutSeconds == 10)
    }
}
