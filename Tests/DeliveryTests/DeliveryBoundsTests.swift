import Foundation
import JuiceMakerCore
import JuiceTestSupport
import Locking
import SQLiteStore
import Testing

/// What `juice deliver` must never do: poll while idle, stall on blocking I/O, or wait
/// without a bound (one deliverer per subscriber: `JuiceDeliverTests`).
/// Real `juice` processes, real programs, real SQLite files, a real loopback server.
@Suite(.tags(.process), .notInUnitRun, .offPool) struct DeliveryBoundsTests {
    /// `count` command subscribers named `sub-0`…, each running `script` with `$N` set to its number.
    private func commandSubscribers(_ count: Int, script: String, extra: String = "") -> String {
        let items = (0..<count).map { index in
            #"{"type": "command", "name": "sub-\#(index)", "command": ["/bin/sh", "-c", "N=\#(index); \#(script)"], "events": ["juiceMade"]\#(extra)}"#
        }
        return "[" + items.joined(separator: ", ") + "]"
    }

    /// Voluntary context switches of every thread of `pid` (each is one wake-up from a wait).
    private func wakeUps(_ pid: Int32) -> Int {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.reduce(0) { total, task in
            let status = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/status", encoding: .utf8)) ?? ""
            let line = status.split(separator: "\n").first { $0.hasPrefix("voluntary_ctxt_switches:") }
            return total + (line.flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0)
        }
    }

    private func threadCount(_ pid: Int32) -> Int {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []).count
    }

    // A. An idle follower sleeps on signals: with nothing to deliver, eight runners and
    // their watches wake a handful of times, not hundreds (the old 100 ms, 50 ms and
    // 200 ms loops woke about 200 times a second).
    @Test func anIdleFollowerOfEightSubscribersBarelyWakes() async throws {
        let workspace = try JuiceSandbox.delivery(subscribers: commandSubscribers(8, script: "exec cat > /dev/null"))
        let follower = try workspace.start(["deliver", "--follow", "--in-memory"]).process
        defer {
            kill(follower.processIdentifier, SIGKILL)
            follower.waitUntilExit()
        }
        // Up: eight runners and eight watches have their threads (a readiness hint only;
        // polled: another process's threads send no signal).
        _ = await eventually(within: .seconds(10)) { threadCount(follower.processIdentifier) >= 17 }
        // A kept sleep, as no signal can stand for it: an idle follower says nothing (it
        // is idleness that is measured), so the wake-ups of fixed windows are counted
        // (windows, not a timing assertion). Start-up can run into the first window, so
        // the quietest of up to three counts: a poller (the old loops: ~400 in 2 s) is
        // loud in every one.
        var windows: [Int] = []
        while windows.count < 3, windows.min() ?? .max >= 100 {
            let before = wakeUps(follower.processIdentifier)
            try await Task.sleep(for: .seconds(2))
            windows.append(wakeUps(follower.processIdentifier) - before)
        }
        let woke = windows.min() ?? .max
        print("idle juice deliver --follow, 8 subscribers: \(windows) wake-ups in 2 s windows")
        #expect(woke < 100, "an idle follower woke \(windows) times in 2 s windows: something polls")
    }

    // B. Blocking I/O never runs on the cooperative pool: with every runner stuck in a
    // cursor write (another process holds the store's write lock), SIGINT still ends
    // `juice deliver --follow` by the flush deadline.
    @Test func deliverFollowExitsOnSIGINTWhileEveryRunnerWaitsForTheStore() async throws {
        // Each program says it started, waits for `go`, reads its line and says so; each
        // saying and the `go` is a line through a named pipe (a signal, not a file polled).
        let script = #"echo $N > started; read x < go; head -n 1 >> out-$N; echo $N > delivered; exec cat >> out-$N"#
        // The programs read only after `go`: on a loaded machine the runners' wait for
        // that read must not time out first (the default is 10 s).
        let subscribers = commandSubscribers(8, script: script, extra: #", "timeoutSeconds": 300"#)
        let workspace = try JuiceSandbox.delivery(subscribers: subscribers, flushDeadlineSeconds: 0.5)
        let startedPipe = try LineFIFO(workspace.file("started"))
        let go = try LineFIFO(workspace.file("go"))
        let deliveredPipe = try LineFIFO(workspace.file("delivered"))
        defer { withExtendedLifetime([startedPipe, go, deliveredPipe]) {} }  // open until the programs are done
        let silent = try workspace.config("silent.json", subscribers: "[]")
        #expect(try workspace.run(["order", "banana"], config: silent).status == 0)
        let follower = try workspace.start(["deliver", "--follow"]).process
        defer {
            if follower.isRunning { kill(follower.processIdentifier, SIGKILL) }
        }
        let started = await startedPipe.lines(8).count == 8
        #expect(started)

        // This process takes the store's write lock and keeps it until the end.
        let store = try SQLiteStore(path: workspace.storePath)
        let lock = StoreWriteLock(store)
        #expect(lock.waitUntilHeld())
        defer { lock.release() }
        go.write(String(repeating: "\n", count: 8))  // one line for each program's `read`
        let delivered =
            await deliveredPipe.lines(8).count == 8
            && (0..<8).allSatisfy { ((try? String(contentsOfFile: workspace.file("out-\($0)"), encoding: .utf8)) ?? "").hasSuffix("\n") }
        #expect(delivered, "every program read its line")

        let interrupted = ContinuousClock.now
        kill(follower.processIdentifier, SIGINT)
        let exited = await waitForExit(follower, within: .seconds(10))
        print(
            "juice deliver --follow, 8 command subscribers, store locked by another process: exit \(ContinuousClock.now - interrupted) after SIGINT")
        #expect(exited, "juice deliver --follow did not exit within 10 s of SIGINT")
    }

    // C. No wait without a bound: a program that never reads its stdin fails the
    // attempt after `timeoutSeconds`; `juice deliver` reports the retry and exits.
    @Test func aProgramThatNeverReadsFailsTheAttemptAfterTimeoutSeconds() async throws {
        let subscribers =
            #"[{"type": "command", "name": "stuck", "command": ["/bin/sh", "-c", "exec sleep 1000"], "timeoutSeconds": 0.3, "retrySchedule": [60]}]"#
        let workspace = try JuiceSandbox.delivery(subscribers: subscribers, flushDeadlineSeconds: 0)
        let silent = try workspace.config("silent.json", subscribers: "[]")
        #expect(try workspace.run(["order", "banana"], config: silent).status == 0)

        let beforeDelivery = Date().timeIntervalSince1970
        let deliver = try workspace.start(["deliver"]).process
        #expect(await waitForExit(deliver, within: .seconds(15)), "juice deliver hung on a program that never reads")
        #expect(deliver.terminationStatus == 75)  // the event waits for its scheduled retry
        #expect(workspace.errors.contains("did not read the event within 300 ms"), "\(workspace.errors)")
        let store = try SQLiteStore(path: workspace.storePath)
        let retry = try #require(try store.retryState(for: "stuck"))
        #expect(retry.attempts == 1)
        // The schedule's step (60 s, with jitter) after the failed attempt, not now.
        #expect(retry.nextAttemptAt > beforeDelivery + 30)
        #expect(try store.cursor(named: "stuck") == 0)
    }
}
