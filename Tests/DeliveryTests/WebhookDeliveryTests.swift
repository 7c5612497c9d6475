import Foundation
import JuiceJSON
import JuiceDelivery
import JuiceMakerCore
import JuiceMakerPluginKit
import JuiceTestSupport
import Synchronization
import Testing
import WebhookPlugin

/// The webhook poster against a real HTTP server on 127.0.0.1, over an in-memory store.
@Suite(.tags(.process), .notInUnitRun, .offPool) struct WebhookDeliveryTests {
    private func webhook(
        _ rig: Rig, url: String, secret: String? = nil, events: [String]? = nil, schedule: [Double] = [0.05, 0.1, 0.1],
        timeout: Double = 5, maxInFlight: Int? = nil
    ) throws -> Delivered<Webhook> {
        var values: [(key: String, value: JSONValue)] = [
            ("url", .string(url)), ("retrySchedule", .array(schedule.map { .number($0) })),
            ("timeoutSeconds", .number(timeout)),
        ]
        if let maxInFlight { values.append(("maxInFlight", .number(Double(maxInFlight)))) }
        if let secret { values.append(("secret", .string(secret))) }
        if let events { values.append(("events", .array(events.map { .string($0) }))) }
        return try Delivered(Webhook.self, configuration: section(values), context: rig.context())
    }

    /// A new delivery rig and the webhook `make` builds for it, attached.
    private func attached(_ make: (Rig) throws -> Delivered<Webhook>) throws -> (plugin: Delivered<Webhook>, rig: Rig) {
        let rig = Rig.delivery()
        let plugin = try make(rig)
        try plugin.attach(to: rig.host)
        return (plugin, rig)
    }

    /// The runner waits for a retry: the failed attempt's retry state is in the journal.
    private let isWaitingForRetry: @Sendable (DeliveryPhase, DeliveryStatistics) -> Bool = { phase, _ in
        if case .waitingForRetry = phase { return true }
        return false
    }

    @Test func signatureVerifiesWithOpenSSLAndATamperedBodyDoesNot() async throws {
        let server = LoopbackHTTPServer()
        try server.start()
        defer { server.stop() }
        // The key is base64 key material (Standard Webhooks); openssl gets the same bytes as text.
        let secret = "s3cr3t-for-tests"
        let (plugin, rig) = try attached {
            try webhook($0, url: server.url, secret: "whsec_" + Data(secret.utf8).base64EncodedString(), events: ["juiceMade"])
        }
        try rig.maker.make(.mangoKiwi)
        #expect(await server.waitForRequests(1))
        await plugin.shutdown(deadline: generousDeadline())

        let request = try #require(server.requests.first)
        #expect(request.method == "POST")
        #expect(request.headers["content-type"] == "application/cloudevents+json")
        let envelope = try #require(try rig.journal().first)
        #expect(request.headers["webhook-id"] == envelope.id.description)
        #expect(request.text == CloudEventFormat.encode(envelope))
        let id = try #require(request.headers["webhook-id"])
        let timestamp = try #require(request.headers["webhook-timestamp"])
        let header = try #require(request.headers["webhook-signature"])

        // An independent implementation: the openssl command on the exact bytes.
        func opensslSignature(_ body: [UInt8]) throws -> String {
            let message = Array("\(id).\(timestamp).".utf8) + body
            let base64 = try runProgram("/bin/sh", ["-c", "/usr/bin/openssl dgst -sha256 -hmac '\(secret)' -binary | base64 -w0"], input: message)
                .stdout
            return "v1," + base64.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        #expect(header == (try opensslSignature(request.body)))
        var tampered = request.body
        tampered[tampered.count / 2] ^= 0x01
        #expect(header != (try opensslSignature(tampered)))
        #expect(!rig.errors.all.joined().contains(secret))
    }

    @Test func threeFailuresThenSuccessDeliversWithTheSameID() async throws {
        let server = LoopbackHTTPServer { index, _ in index < 3 ? .status(500) : .status(200) }
        try server.start()
        defer { server.stop() }
        let (plugin, rig) = try attached { try webhook($0, url: server.url, events: ["juiceMade"]) }
        try rig.maker.make(.banana)
        let delivery = try #require(plugin.delivery)
        #expect(await delivery.wait(until: generousDeadline()) { _, statistics in statistics.delivered == 1 })
        await plugin.shutdown(deadline: generousDeadline())

        let requests = server.requests
        #expect(requests.count == 4)
        #expect(Set(requests.compactMap { $0.headers["webhook-id"] }).count == 1)
        #expect(delivery.statistics.attempts == 4)
        #expect(delivery.statistics.failed == 3)
        #expect(try rig.store.cursor(named: "hook") == rig.store.lastSequence())
        #expect(try rig.store.retryState(for: "hook") == nil)
        #expect(try rig.store.deadLetters(for: nil).isEmpty)
    }

    @Test func theLastFailedAttemptRecordsADeadLetterAndMovesOn() async throws {
        let server = LoopbackHTTPServer { _, request in request.text.contains("\"juice\":\"banana\"") ? .status(500) : .status(204) }
        try server.start()
        defer { server.stop() }
        let (plugin, rig) = try attached { try webhook($0, url: server.url, events: ["juiceMade"], schedule: [0.01, 0.01]) }
        try rig.maker.make(.banana)
        try rig.maker.make(.kiwi)
        let delivery = try #require(plugin.delivery)
        // With a window the kiwi is delivered before the banana's attempts run out: wait for both.
        #expect(
            await delivery.wait(until: generousDeadline()) { _, statistics in statistics.delivered == 1 && statistics.deadLettered == 1 })
        await plugin.shutdown(deadline: generousDeadline())

        let letters = try rig.store.deadLetters(for: "hook")
        #expect(letters.count == 1)
        #expect(letters.first?.attempts == 3)
        #expect(letters.first?.sequence == 1)
        #expect(letters.first?.lastError.contains("HTTP 500") == true)
        // The kiwi is not held back by the failing banana before it: sent once, at once.
        #expect(server.requests.filter { $0.text.contains("kiwi") }.count == 1)
        #expect(server.requests.filter { $0.text.contains("\"juice\":\"banana\"") }.count == 3)
        #expect(rig.errors.all.contains { $0.contains("gave up on event 1") })
        #expect(try rig.store.cursor(named: "hook") == rig.store.lastSequence())
    }

    @Test func goneDisablesTheEndpointUntilRetry() async throws {
        let gone = Atomic<Bool>(true)
        let server = LoopbackHTTPServer { _, _ in gone.load(ordering: .relaxed) ? .status(410) : .status(200) }
        try server.start()
        defer { server.stop() }
        let (plugin, rig) = try attached { try webhook($0, url: server.url, events: ["juiceMade"]) }
        try rig.maker.make(.banana)
        let delivery = try #require(plugin.delivery)
        #expect(
            await delivery.wait(until: generousDeadline()) { phase, statistics in
                phase != .starting && phase != .delivering && statistics.failed == 1
            })
        guard case .disabled = delivery.phase else {
            Issue.record("expected disabled, found \(delivery.phase)")
            return
        }
        try rig.maker.make(.kiwi)
        #expect(await delivery.deliverPending() != .caughtUp)
        #expect(server.requests.count == 1)
        #expect(try rig.store.cursor(named: "hook") == 0)
        #expect(rig.errors.all.contains { $0.contains("410 Gone") && $0.contains("juice subscribers retry hook") })

        gone.store(false, ordering: .relaxed)
        #expect(await delivery.retry(deadLetters: false) == .caughtUp)
        await plugin.shutdown(deadline: generousDeadline())
        #expect(server.requests.count == 3)
        #expect(try rig.store.cursor(named: "hook") == rig.store.lastSequence())
    }

    /// One banana's delivery answered with `status` and `Retry-After: retryAfter`, under
    /// the schedule `[0.05, longestStep]`: the retry state it leaves, the requests the
    /// server saw, and the clock before the order and after the shutdown.
    private func answeredWithRetryAfter(
        status: Int, retryAfter: String, longestStep: Double
    ) async throws -> (state: DeliveryRetryState, requests: Int, before: Double, after: Double) {
        let server = LoopbackHTTPServer { _, _ in .status(status, headers: [("Retry-After", retryAfter)]) }
        try server.start()
        defer { server.stop() }
        let (plugin, rig) = try attached { try webhook($0, url: server.url, events: ["juiceMade"], schedule: [0.05, longestStep]) }
        let before = Date().timeIntervalSince1970
        try rig.maker.make(.banana)
        let delivery = try #require(plugin.delivery)
        #expect(await delivery.wait(until: generousDeadline(), for: isWaitingForRetry))
        await plugin.shutdown(deadline: generousDeadline())
        let after = Date().timeIntervalSince1970
        let state = try #require(try rig.store.retryState(for: "hook"))
        return (state, server.requests.count, before, after)
    }

    @Test func retryAfterIsHonouredInTheScheduledTime() async throws {
        // The schedule's longest step (2 h) bounds what Retry-After may ask for.
        let answered = try await answeredWithRetryAfter(status: 503, retryAfter: "3600", longestStep: 7_200)
        #expect(answered.state.attempts == 1)
        #expect(answered.state.nextAttemptAt >= answered.before + 3600)
        #expect(answered.requests == 1)
    }

    @Test func retryAfterBeyondTheLongestScheduledStepIsCappedAtIt() async throws {
        let answered = try await answeredWithRetryAfter(status: 429, retryAfter: "99999999999999999999", longestStep: 600)
        // Not the schedule's first step (0.05 s ± jitter): the capped Retry-After, 600 s.
        #expect(answered.state.nextAttemptAt >= answered.before + 600 - 1)
        #expect(answered.state.nextAttemptAt <= answered.after + 600 + 1)
    }

    @Test func withMaxInFlightOneEndpointDownThenUpDeliversEverythingInJournalOrder() async throws {
        let server = LoopbackHTTPServer()
        try server.start()
        server.stop()
        let (plugin, rig) = try attached { try webhook($0, url: server.url, schedule: [60], maxInFlight: 1) }
        for _ in 0..<20 { try rig.maker.make(.strawberryBanana) }
        let delivery = try #require(plugin.delivery)
        #expect(await delivery.wait(until: generousDeadline(), for: isWaitingForRetry))
        try server.start()
        #expect(await delivery.deliverPending() == .caughtUp)
        await plugin.shutdown(deadline: generousDeadline())
        let ids = server.requests.compactMap { $0.headers["webhook-id"] }
        let journal = try rig.journal().map(\.id.description)
        #expect(ids == journal, "\(ids.count) requests for \(journal.count) events: \(rig.errors.all)")
    }

    @Test func shutdownReturnsByItsDeadlineWhileTheEndpointHangs() async throws {
        let server = LoopbackHTTPServer { _, _ in .hang }
        try server.start()
        defer { server.stop() }
        let (plugin, rig) = try attached { try webhook($0, url: server.url, events: ["juiceMade"], timeout: 300) }
        try rig.maker.make(.banana)
        #expect(await server.waitForRequests(1))
        let deadline = ContinuousClock.now + .milliseconds(200)
        await plugin.shutdown(deadline: deadline)
        // Bounded, not a speed assertion: only a shutdown that ignores its deadline (and
        // so waits out the attempt's 300 s) fails. The bound is the generous two minutes:
        // a loaded 2-core run can starve the cooperative pool for ~40 s.
        #expect(ContinuousClock.now < deadline + .seconds(120))
        #expect(try rig.store.cursor(named: "hook") == 0)
    }

    @Test func configurationErrorsNameTheFieldAndHideTheSecret() throws {
        let rig = Rig.delivery()
        #expect(throws: ConfigurationError.self) { try webhook(rig, url: "ftp://example.com") }
        do {
            _ = try webhook(rig, url: "https://example.com/hook", secret: "whsec_!!not-base64!!")
            Issue.record("expected a configuration error")
        } catch let error as ConfigurationError {
            #expect(error.path == "subscribers[0].secret")
            #expect(!error.description.contains("not-base64"))
        }
    }

    @Test func plainHTTPToAnotherMachineIsWarnedAbout() async throws {
        let rig = Rig.delivery()
        let remote = try webhook(rig, url: "http://user:pw@example.com/hook")
        #expect(remote.isPlainHTTPOffMachine)
        // The capability `juice config check` reads, and what attaching says once.
        #expect(
            remote.startWarnings.map(\.english) == [
                "warning: http://***@example.com/hook is plain http:// to another machine; events travel unencrypted (use https://)"
            ])
        try remote.attach(to: rig.host)
        try remote.attach(to: rig.host)
        #expect(rig.errors.all == remote.startWarnings.map(\.english))
        for url in ["http://127.0.0.1:9/hook", "http://localhost:9/hook", "https://example.com/hook"] {
            let local = try webhook(rig, url: url)
            #expect(!local.isPlainHTTPOffMachine)
            #expect(local.startWarnings.isEmpty)
        }
        await remote.shutdown(deadline: generousDeadline())
    }
}
