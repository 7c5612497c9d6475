import Foundation
import JuiceTestSupport
import Testing

/// SIGTERM and SIGHUP stop `juice` the way Ctrl-C does: the change under way
/// finishes, plugins shut down by their deadline (the logger writes every line, a
/// durable subscriber leaves what it did not deliver in the journal), and the exit
/// status is 128 + the signal. Real processes, a real store, a logger writing
/// CloudEvents JSON lines to a file; every wait is for output or an exit.
@Suite(.tags(.process, .slow), .notInUnitRun, .offPool) struct StopSignalTests {
    /// SIGTERM (what `kill` and service managers send) and SIGHUP (the terminal went away).
    static let signals: [(signal: Int32, status: Int32)] = [(SIGTERM, 143), (SIGHUP, 129)]
    /// What stops `juice deliver --follow` (SIGHUP reloads it).
    static let followSignals: [(signal: Int32, status: Int32)] = [(SIGTERM, 143), (SIGINT, 130)]

    @Test(arguments: signals)
    func watchStopsWith128PlusTheSignal(_ signal: Int32, _ status: Int32) throws {
        let sandbox = try JuiceSandbox()
        let config = try sandbox.loggingConfig()
        #expect(try sandbox.run(["order", "banana", "--config", config]).status == 0)
        let watch = try sandbox.start(["watch", "--since", "0", "--json", "--config", config])
        #expect(watch.wait(until: { lines($0) == 2 }), "\(watch.stderr)")
        for _ in 0..<2 {
            #expect(try sandbox.run(["order", "mango-kiwi", "--config", config]).status == 0)
        }
        #expect(watch.wait(until: { lines($0) == 8 }), "\(watch.stdout)")
        let exit = watch.stop(with: signal)
        #expect(exit.reason == .exit && exit.status == status, "\(exit) \(watch.stderr)")
        let journal = try sandbox.journal().compactMap { $0["id"] as? String }
        #expect(journal.count == 8)
        #expect(ids(inJSONLines: watch.stdout) == journal, "watch showed every event, in order")
        #expect(try sandbox.loggedIDs() == journal, "the log holds every committed event")
        #expect(try sandbox.stock() == ["strawberry": 10, "banana": 8, "pineapple": 10, "kiwi": 8, "mango": 6])
    }

    /// Orders typed into a piped shell, the last ones still arriving as the signal
    /// does: the shell finishes the order under way and orders nothing after it.
    @Test(arguments: signals)
    func pipedShellStopsWith128PlusTheSignal(_ signal: Int32, _ status: Int32) throws {
        let sandbox = try JuiceSandbox()
        let config = try sandbox.loggingConfig()
        let shell = try sandbox.start(["shell", "--config", config])
        try shell.type("7\nbanana\n")
        #expect(shell.wait(until: { $0.contains("Here's your banana juice! Enjoy!") }), "\(shell.stderr)")
        try shell.type(String(repeating: "kiwi\n", count: 20))
        let exit = shell.stop(with: signal)
        #expect(exit.reason == .exit && exit.status == status, "\(exit) \(shell.stderr)")
        #expect(shell.stderr.isEmpty, "\(shell.stderr)")

        // Every order is whole: the stock is the initial stock minus what the
        // journal's juiceMade events consumed, and each has its stockChanged events.
        let journal = try sandbox.journal()
        let made = journal.filter { $0["type"] as? String == "juicemaker.juice.made" }
        #expect(made.count >= 2 && made.count <= 22)
        var expected = ["strawberry": 10, "banana": 10, "pineapple": 10, "kiwi": 10, "mango": 10]
        for event in made {
            let consumed = (event["data"] as? [String: Any])?["consumed"] as? [String: Int] ?? [:]
            for (fruit, amount) in consumed { expected[fruit, default: 0] -= amount }
        }
        #expect(try sandbox.stock() == expected)
        let changes = journal.filter { $0["type"] as? String == "juicemaker.stock.changed" }
        #expect(changes.count == made.count + 1, "mango-kiwi changes two fruits, the others one each")
        #expect(try sandbox.loggedIDs() == journal.compactMap { $0["id"] as? String })
    }

    /// `juice deliver --follow` with a slow command subscriber: stopped while events
    /// are still waiting, it exits by the flush deadline; what it did not deliver
    /// stays in the journal and the next `juice deliver` sends it. (SIGHUP reloads its
    /// config instead: DeliverReloadTests.)
    @Test(arguments: followSignals)
    func deliverFollowStopsWith128PlusTheSignal(_ signal: Int32, _ status: Int32) throws {
        let sandbox = try JuiceSandbox()
        let out = sandbox.root + "/delivered.jsonl"
        // Takes a line and writes it out; while `slow` exists, then waits on it, a named
        // pipe nobody writes: it is stopped after its first line, whatever the machine's load.
        let slow = sandbox.root + "/slow"
        #expect(mkfifo(slow, 0o600) == 0)
        let program = #"while read -r line; do printf '%s\n' "$line" >> "$0"; if [ -e "$1" ]; then read -r x < "$1"; fi; done"#
        let follower = try sandbox.loggingConfig(
            extra: #"""
                , { "type": "command", "name": "audit", "command": ["/bin/sh", "-c", \#(quoted(program)), \#(quoted(out)), \#(quoted(slow))] }
                """#, flushDeadlineSeconds: 0.5, name: "follower.json")
        let orders = try sandbox.loggingConfig()
        #expect(try sandbox.run(["stock", "--config", orders]).status == 0)  // the store exists
        let deliver = try sandbox.start(["deliver", "--follow", "--config", follower])
        for _ in 0..<5 {
            #expect(try sandbox.run(["order", "banana", "--config", orders]).status == 0)
        }
        let delivered = { (try? String(contentsOfFile: out, encoding: .utf8)) ?? "" }
        #expect(deliver.wait(until: { _ in lines(delivered()) >= 1 }), "\(deliver.stderr)")
        let exit = deliver.stop(with: signal)
        #expect(exit.reason == .exit && exit.status == status, "\(exit) \(deliver.stderr)")

        let journal = try sandbox.journal().compactMap { $0["id"] as? String }
        #expect(journal.count == 10)
        #expect(try sandbox.loggedIDs() == journal)
        let before = ids(inJSONLines: delivered())
        #expect(!before.isEmpty && before.count < journal.count, "stopped half-way: \(before.count) of \(journal.count)")
        #expect(before == Array(journal.prefix(before.count)), "delivered in journal order")

        // The rest waited in the journal.
        try FileManager.default.removeItem(atPath: slow)
        let rest = try sandbox.run(["deliver", "--config", follower])
        #expect(rest.status == 0, "\(rest.stderr)")
        let after = ids(inJSONLines: delivered())
        #expect(Set(after) == Set(journal), "every event delivered at least once")
        #expect(after.count <= journal.count + 1, "at most the event under way is sent again")
    }

    /// `juice order` stopped after its change, while a durable subscriber's delivery
    /// still runs: the order stays made, the log complete, the event undelivered in
    /// the journal, and the status says the signal.
    @Test(
        .disabled("started from the test process, juice exits 0 here, while the same run from a shell or Python exits 143/129: open"),
        arguments: signals)
    func orderStoppedDuringShutdownKeepsEverything(_ signal: Int32, _ status: Int32) throws {
        let sandbox = try JuiceSandbox()
        let started = sandbox.root + "/started"
        // Says it started, then never reads: the delivery waits until the deadline.
        let config = try sandbox.loggingConfig(
            extra: #"""
                , { "type": "command", "name": "audit", "command": ["/bin/sh", "-c", "touch \"$0\"; exec sleep 1000", \#(quoted(started))],
                    "timeoutSeconds": 30 }
                """#, flushDeadlineSeconds: 3)
        let order = try sandbox.start(["order", "banana", "--config", config])
        #expect(order.wait(until: { _ in FileManager.default.fileExists(atPath: started) }), "\(order.stderr)")
        let exit = order.stop(with: signal)
        #expect(exit.reason == .exit && exit.status == status, "\(exit) \(order.stderr)")
        #expect(order.stdout.contains("Here's your banana juice! Enjoy!"))
        #expect(try sandbox.stock()["banana"] == 8)
        let journal = try sandbox.journal().compactMap { $0["id"] as? String }
        #expect(journal.count == 2)
        #expect(try sandbox.loggedIDs() == journal)
        let subscribers = try sandbox.run(["subscribers", "--json", "--config", config])
        let audit = (try subscribers.json() as? [[String: Any]])?.first { $0["name"] as? String == "audit" }
        #expect((audit?["cursor"] as? NSNumber)?.intValue == 0, "nothing delivered: \(subscribers.stdout)")
    }

    /// Two stop signals at once: the kernel hands over pending signals lowest number
    /// first, so the order they were sent in may be lost; a SIGHUP never names the
    /// exit when a SIGINT or SIGTERM comes with it (a service manager's SIGTERM with
    /// the SIGHUP it sends after it), in either order. Several rounds: the race
    /// between the two is the point.
    @Test(arguments: [(SIGTERM, SIGHUP, 143), (SIGHUP, SIGTERM, 143), (SIGINT, SIGHUP, 130), (SIGHUP, SIGINT, 130)] as [(Int32, Int32, Int32)])
    func aHangUpWithAnotherStopSignalIsNotTheExit(_ first: Int32, _ second: Int32, _ status: Int32) throws {
        let sandbox = try JuiceSandbox()
        #expect(try sandbox.run(["order", "banana"]).status == 0)
        for _ in 0..<4 {
            let watch = try sandbox.start(["watch", "--since", "0", "--json"])
            #expect(watch.wait(until: { lines($0) == 2 }), "\(watch.stderr)")
            kill(watch.process.processIdentifier, first)
            let exit = watch.stop(with: second)
            #expect(exit.reason == .exit && exit.status == status, "\(exit) \(watch.stderr)")
        }
    }

    /// A signal `juice` was started ignoring stays ignored: under `nohup`, SIGHUP
    /// does not stop `watch`; the SIGTERM after it does (were SIGHUP caught, it
    /// would have been first: 129).
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/nohup")))
    func aSignalIgnoredAtStartStaysIgnored() throws {
        let sandbox = try JuiceSandbox()
        #expect(try sandbox.run(["order", "banana"]).status == 0)
        let watch = try sandbox.start([JuiceSandbox.binary, "watch", "--since", "0", "--json"], executable: "/usr/bin/nohup")
        #expect(watch.wait(until: { lines($0) == 2 }), "\(watch.stderr)")
        kill(watch.process.processIdentifier, SIGHUP)
        let exit = watch.stop(with: SIGTERM)
        #expect(exit.reason == .exit && exit.status == 143, "\(exit) \(watch.stderr)")
    }
}

extension JuiceSandbox {
    /// The log every `loggingConfig` writes, as CloudEvents JSON lines.
    var logPath: String { root + "/juice.log.jsonl" }

    /// A config with a JSON logger writing to `logPath` and the CLI notifier, plus
    /// `extra` subscribers (text that starts with a comma); returns its path.
    func loggingConfig(extra: String = "", flushDeadlineSeconds: Double = 2, name: String = "logging.json") throws -> String {
        try write(
            #"""
            { "flushDeadlineSeconds": \#(flushDeadlineSeconds), "subscribers": [
                { "type": "logger", "format": "json", "path": \#(quoted(logPath)) },
                { "type": "cli-notifier" }\#(extra) ] }
            """#, to: name)
    }

    /// The ids of the events in the log, in the order they were written.
    func loggedIDs() throws -> [String] {
        ids(inJSONLines: (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "")
    }
}

extension RunningProgram {
    /// Sends `signal` and waits for the process to exit: its status and how it ended
    /// (`.exit` when `juice` exited by itself, `.uncaughtSignal` when the signal killed it).
    func stop(with signal: Int32) -> (status: Int32, reason: Process.TerminationReason) {
        kill(process.processIdentifier, signal)
        reap(process)
        try? input?.close()
        return (process.terminationStatus, process.terminationReason)
    }
}

/// The `id` of each CloudEvents JSON line of `text`.
func ids(inJSONLines text: String) -> [String] {
    text.split(separator: "\n").compactMap {
        (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["id"] as? String
    }
}

/// How many lines `text` holds.
func lines(_ text: String) -> Int {
    text.split(separator: "\n").count
}

/// `text` as a JSON string literal.
func quoted(_ text: String) -> String {
    String(decoding: try! JSONSerialization.data(withJSONObject: text, options: [.fragmentsAllowed]), as: UTF8.self)
}
