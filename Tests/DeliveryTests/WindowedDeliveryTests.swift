import Foundation
import JuiceJSON
import JuiceDelivery
import JuiceMakerCore
import JuiceMakerPluginKit
import JuiceTestSupport
import Locking
import Synchronization
import Testing
import WebhookPlugin

/// The webhook's window against a real loopback server that answers after a fixed
/// latency and checks every request's signature: several requests in flight, the
/// cursor over the acknowledged prefix, each failure on its own schedule, a
/// `Retry-After` pausing the endpoint, `ordered: true`, and `kill -9` mid-flight.
@Suite(.tags(.unit)) struct WindowedDeliveryTests {
    static let secret = "whsec_" + Data("windowed delivery secret".utf8).base64EncodedString()

    /// A server with `latency` that counts requests not signed with `secret`.
    static func server(
        latency: Duration, script: @escaping @Sendable (Int, LoopbackHTTPServer.Request) -> LoopbackHTTPServer.Answer
    )
        -> LoopbackHTTPServer
    {
        let signature = WebhookSignature(secret: secret)
        return .signed(latency: latency, verify: { signature?.verify(header: $0, id: $1, timestamp: $2, body: $3) ?? false }, script: script)
    }

    private func webhook(_ rig: Rig, url: String, schedule: [Double], extra: [(key: String, value: JSONValue)] = []) throws -> Delivered<Webhook> {
        let values: [(key: String, value: JSONValue)] = [
            ("url", .string(url)), ("secret", .string(Self.secret)), ("retrySchedule", .array(schedule.map { .number($0) })),
            ("timeoutSeconds", .number(10)),
        ]
        return try Delivered(Webhook.self, configuration: section(values + extra), context: rig.context())
    }

    /// Event 5 of 40 is answered 500 while the rest are answered 200, 16 in flight:
    /// the 15 after it in the window are acknowledged, none beyond the window is sent,
    /// the cursor waits at 4, and the journal keeps event 5's own schedule.
    @Test func oneFailingEventInAWindowOf16() async throws {
        let failing = Atomic<Bool>(true)
        let server = Self.server(latency: .milliseconds(20)) { _, request in
            request.sequence == 5 && failing.load(ordering: .relaxed) ? .status(500) : .status(200)
        }
        try server.start()
        defer { server.stop() }
        let rig = Rig.delivery()
        for _ in 0..<20 { try rig.maker.make(.banana) }  // 40 events: a stock change and a juice each
        let plugin = try webhook(rig, url: server.url, schedule: [0.2, 600])
        let before = Date().timeIntervalSince1970
        try plugin.attach(to: rig.host)
        let delivery = try #require(plugin.delivery)
        #expect(
            await delivery.wait(until: generousDeadline()) { phase, statistics in
                if case .waitingForRetry = phase { return statistics.failed == 2 }
                return false
            })
        let after = Date().timeIntervalSince1970
        #expect(delivery.statistics.delivered == 19, "events 1-4 and 6-20: \(delivery.statistics)")
        #expect(try rig.store.cursor(named: "hook") == 4)
        let retry = try #require(try rig.store.retryState(for: "hook"))
        #expect(retry.sequence == 5 && retry.attempts == 2 && !retry.disabled)
        // The second step of the schedule, 600 s ± 10%, from the second failure.
        #expect(retry.nextAttemptAt >= before + 540 && retry.nextAttemptAt <= after + 660)
        let sent = server.requests.compactMap(\.sequence)
        #expect(sent.max() == 20, "the window cannot slide past event 5: \(sent)")
        let attemptsOf5 = server.requests.filter { $0.sequence == 5 }.map(\.arrival)
        #expect(attemptsOf5.count == 2)
        if attemptsOf5.count == 2 {
            // The first step, 0.2 s less 10% jitter, at least (a lower bound, not a speed).
            #expect(attemptsOf5[1] - attemptsOf5[0] >= .milliseconds(180))
        }
        #expect(rig.errors.all.filter { $0.contains("not delivered") }.count == 1, "one line for the failing event: \(rig.errors.all)")

        failing.store(false, ordering: .relaxed)
        #expect(await delivery.deliverPending() == .caughtUp)
        await plugin.shutdown(deadline: generousDeadline())
        let ids = server.requests.compactMap { $0.headers["webhook-id"] }
        #expect(Set(ids) == Set(try rig.journal().map(\.id.description)))
        #expect(ids.count == 40 + 2, "each event once, event 5 three times")
        #expect(windowViolations(server.requests.compactMap(\.sequence), window: 16).isEmpty)
        #expect(server.failedVerification == 0)
        #expect(try rig.store.cursor(named: "hook") == 40)
        #expect(try rig.store.retryState(for: "hook") == nil)
    }

    /// A 429 with `Retry-After: 2` for event 1 while events 2-16 are answered 500 once:
    /// their retries (0.3 s on the schedule) wait for the endpoint's 2 s as well.
    @Test func retryAfterPausesEveryRequestToTheEndpoint() async throws {
        let server = Self.server(latency: .zero) { index, request in
            let sequence = request.sequence ?? 0
            if sequence == 1, index < 16 { return .status(429, headers: [("Retry-After", "2")]) }
            return index < 16 ? .status(500) : .status(200)
        }
        try server.start()
        defer { server.stop() }
        let rig = Rig.delivery()
        for _ in 0..<8 { try rig.maker.make(.banana) }  // 16 events: one window
        let plugin = try webhook(rig, url: server.url, schedule: [0.3, 5])
        try plugin.attach(to: rig.host)
        let delivery = try #require(plugin.delivery)
        #expect(
            await delivery.wait(until: generousDeadline()) { phase, statistics in
                phase == .caughtUp && statistics.delivered == 16
            })
        await plugin.shutdown(deadline: generousDeadline())
        let requests = server.requests
        #expect(requests.count == 32)
        #expect(Set(requests.prefix(16).compactMap(\.sequence)) == Set(1...16), "one window of first attempts")
        let limited = try #require(requests.first { $0.sequence == 1 })
        for request in requests.dropFirst(16) {
            // Every second attempt left after the 429 came back, 2 s after it was asked at least.
            #expect(request.arrival - limited.arrival >= .seconds(2), "event \(request.sequence ?? 0)")
        }
        #expect(server.failedVerification == 0)
    }

    /// Events committed while the first ones wait for their retry (answered 500) are
    /// read and delivered once `deliverPending` forces the attempt: a wake-up during
    /// the retry's wait is not taken as served without a read. One at a time and 16
    /// in flight.
    @Test(arguments: [1, 16])
    func eventsCommittedDuringARetryWaitAreDeliveredWhenItIsForced(maxInFlight: Int) async throws {
        let failing = Atomic<Bool>(true)
        let server = Self.server(latency: .zero) { _, request in
            (request.sequence ?? 0) <= 2 && failing.load(ordering: .relaxed) ? .status(500) : .status(200)
        }
        try server.start()
        defer { server.stop() }
        let rig = Rig.delivery()
        try rig.maker.make(.banana)  // events 1 and 2
        let plugin = try webhook(rig, url: server.url, schedule: [60], extra: [("maxInFlight", .number(Double(maxInFlight)))])
        try plugin.attach(to: rig.host)
        let delivery = try #require(plugin.delivery)
        #expect(
            await delivery.wait(until: generousDeadline()) { phase, _ in
                if case .waitingForRetry = phase { return true }
                return false
            })
        for _ in 0..<10 { try rig.maker.make(.banana) }  // while the first ones wait for their retry
        failing.store(false, ordering: .relaxed)
        #expect(await delivery.deliverPending() == .caughtUp)
        await plugin.shutdown(deadline: generousDeadline())
        let journal = try rig.journal().map(\.sequence)
        #expect(journal.count == 22)
        #expect(Set(server.requests.compactMap(\.sequence)) == Set(journal), "\(server.requests.compactMap(\.sequence))")
        #expect(try rig.store.cursor(named: "hook") == journal.last)
        #expect(server.failedVerification == 0)
    }

    /// `ordered: true` with `maxInFlight` 16: one request at a time, and the events
    /// answered 2xx come in journal order although every third first attempt fails.
    /// The same without `ordered`: the events after a failing one are not held back.
    @Test(arguments: [true, false])
    func orderedDeliversInJournalOrderUnderRetries(ordered: Bool) async throws {
        let seen = Locked<Set<Int64>>([])
        let accepted = Locked<[Int64]>([])
        let server = Self.server(latency: .milliseconds(5)) { _, request in
            let sequence = request.sequence ?? 0
            let first = seen.withLock { $0.insert(sequence).inserted }
            if first, sequence % 3 == 0 { return .status(500) }
            accepted.withLock { $0.append(sequence) }
            return .status(204)
        }
        try server.start()
        defer { server.stop() }
        let rig = Rig.delivery()
        for _ in 0..<15 { try rig.maker.make(.banana) }
        let plugin = try webhook(
            rig, url: server.url, schedule: [0.05], extra: [("maxInFlight", .number(16)), ("ordered", .bool(ordered))])
        try plugin.attach(to: rig.host)
        let delivery = try #require(plugin.delivery)
        #expect(await delivery.wait(until: generousDeadline()) { phase, statistics in phase == .caughtUp && statistics.delivered == 30 })
        await plugin.shutdown(deadline: generousDeadline())
        let order = accepted.withLock { $0 }
        #expect(Set(order) == Set(1...30) && order.count == 30)
        if ordered {
            #expect(order == Array(1...30), "\(order)")
            #expect(server.connectionsAccepted == 1, "one request at a time needs one connection")
        } else {
            // Event 4 is accepted before event 3's retry, 50 ms after its first attempt.
            #expect(order != Array(1...30), "\(order)")
            #expect(server.connectionsAccepted > 1)
        }
        #expect(server.failedVerification == 0)
    }
}

/// The window as real processes on a SQLite store see it: `kill -9` of `juice deliver
/// --follow` with 16 requests in flight to an endpoint 50 ms away, and `juice subscribers`.
@Suite(.tags(.process), .notInUnitRun, .offPool) struct WindowedProcessTests {
    @Test func subscribersShowsHowManyRequestsEachKeepsInFlight() throws {
        let workspace = try JuiceSandbox.delivery(
            subscribers: #"""
                [{"type": "webhook", "name": "wide", "url": "http://127.0.0.1:9/hook"},
                 {"type": "webhook", "name": "narrow", "url": "http://127.0.0.1:9/hook", "maxInFlight": 64, "ordered": true},
                 {"type": "command", "name": "program", "command": ["/bin/true"]}]
                """#, backgroundDelivery: false)
        let rows = try workspace.subscriberRows()
        var windows: [String: Int] = [:]
        for row in rows {
            if let name = row["name"] as? String, let window = row["maxInFlight"] as? Int { windows[name] = window }
        }
        #expect(windows == ["wide": 16, "narrow": 1, "program": 1], "\(rows)")
    }

    @Test func killsMidFlightLoseNothingAndResendAtMostTheWindowEach() async throws {
        let server = WindowedDeliveryTests.server(latency: .milliseconds(50)) { _, _ in .status(200) }
        try server.start()
        defer { server.stop() }
        let webhook =
            #"[{"type": "webhook", "url": "\#(server.url)", "secret": "\#(WindowedDeliveryTests.secret)", "timeoutSeconds": 30, "maxInFlight": 16}]"#
        let workspace = try JuiceSandbox.delivery(subscribers: webhook, flushDeadlineSeconds: 10, backgroundDelivery: false)
        let silent = try workspace.config("silent.json", subscribers: "[]")
        let kills = 4
        for _ in 0..<kills {
            // 80 events wait for each follower: five windows and more.
            for _ in 0..<40 { #expect(try workspace.run(["order", "banana"], config: silent).status == 0) }
            let before = server.requests.count
            let follower = try workspace.start(["deliver", "--follow"], inputFile: "/dev/null").process
            // Killed once it has sent two windows' worth: requests are in flight then.
            _ = await server.waitForRequests(before + 40, until: .now + .seconds(30))
            kill(follower.processIdentifier, SIGKILL)
            follower.waitUntilExit()
            #expect(follower.terminationReason == .uncaughtSignal)
        }
        #expect(try workspace.run(["deliver"]).status == 0)

        let journal = try workspace.journalSequences()
        let sequences = server.requests.compactMap { try? CloudEventFormat.decode($0.text).sequence }
        #expect(journal.count == kills * 80)
        #expect(Set(sequences) == Set(journal), "every event received at least once")
        let duplicates = sequences.count - Set(sequences).count
        print(
            "deliver --follow killed \(kills) times with 16 in flight: \(sequences.count) requests for \(journal.count) events, \(duplicates) duplicate(s)"
        )
        #expect(duplicates <= kills * 16, "at most the window again per kill")
        #expect(windowViolations(sequences, window: 16).isEmpty)
        #expect(server.connectionsAccepted > kills, "several connections per follower")
        #expect(server.failedVerification == 0)
    }
}
