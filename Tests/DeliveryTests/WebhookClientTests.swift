import Foundation
import JuiceDelivery
import JuiceMakerCore
import JuiceMakerPluginKit
import JuiceTestSupport
import Testing
import WebhookPlugin

/// The webhook plugin over its own HTTP client: what reaches the server, and the words
/// a failed attempt leaves in the journal (the catalog's, as with URLSession).
@Suite(.tags(.unit)) struct WebhookClientTests {
    private func webhook(_ rig: Rig, url: String, timeout: Double = 5, schedule: [Double] = [60]) throws -> Delivered<Webhook> {
        try Delivered(
            Webhook.self,
            configuration: section([
                ("url", .string(url)), ("timeoutSeconds", .number(timeout)), ("retrySchedule", .array(schedule.map { .number($0) })),
                ("events", .array([.string("juiceMade")])),
            ]),
            context: rig.context())
    }

    /// The last error the journal keeps for the subscriber once its first attempt failed.
    private func firstFailure(_ rig: Rig, _ plugin: Delivered<Webhook>) async throws -> String {
        try plugin.attach(to: rig.host)
        try rig.maker.make(.banana)
        #expect(await eventually { (try? rig.store.retryState(for: "hook")) != nil })
        await plugin.shutdown(deadline: generousDeadline())
        return try #require(try rig.store.retryState(for: "hook")).lastError
    }

    @Test func userInformationIsBasicAuthorizationAndNeverInTheRequestLine() async throws {
        let server = LoopbackHTTPServer()
        try server.start()
        defer { server.stop() }
        let rig = Rig.delivery()
        let plugin = try webhook(rig, url: "http://us%40er:p%3Aw@127.0.0.1:\(server.port)/hook?x=1#part")
        try plugin.attach(to: rig.host)
        try rig.maker.make(.banana)
        #expect(await eventually { server.requests.count == 1 })
        await plugin.shutdown(deadline: generousDeadline())
        let request = try #require(server.requests.first)
        #expect(request.path == "/hook?x=1")
        #expect(request.headers["authorization"] == "Basic " + Data("us@er:p:w".utf8).base64EncodedString())
        #expect(request.headers["host"] == "127.0.0.1:\(server.port)")
        #expect(request.headers["user-agent"] == "JuiceMaker")
        #expect(!rig.errors.all.joined().contains("p%3Aw"))
    }

    @Test func aHungEndpointFailsTheAttemptAfterTimeoutSeconds() async throws {
        let server = LoopbackHTTPServer { _, _ in .hang }
        try server.start()
        defer { server.stop() }
        let rig = Rig.delivery()
        let reason = try await firstFailure(rig, try webhook(rig, url: server.url, timeout: 0.3))
        #expect(reason == "POST \(server.url) failed: no answer within the timeout")
        #expect(rig.errors.korean.contains { $0.contains("제한 시간 안에 응답이 없습니다") }, "\(rig.errors.korean)")
    }

    @Test func aRefusedConnectionIsSaidSo() async throws {
        let server = LoopbackHTTPServer()
        try server.start()
        server.stop()
        let rig = Rig.delivery()
        let reason = try await firstFailure(rig, try webhook(rig, url: server.url))
        #expect(reason == "POST \(server.url) failed: connection refused")
    }

    /// URLSession followed a redirect and re-sent the POST as a GET without its body,
    /// then counted the event delivered; a redirect is now a failure like any non-2xx.
    @Test func aRedirectIsAFailureNotFollowed() async throws {
        let server = LoopbackHTTPServer { _, _ in .status(302, headers: [("Location", "/elsewhere")]) }
        try server.start()
        defer { server.stop() }
        let rig = Rig.delivery()
        let reason = try await firstFailure(rig, try webhook(rig, url: server.url))
        #expect(reason == "\(server.url) answered HTTP 302")
        #expect(server.requests.map(\.method) == ["POST"])
    }

    @Test func aURLTheClientCannotUseIsAConfigurationErrorOnURL() throws {
        let rig = Rig.delivery()
        do {
            _ = try webhook(rig, url: "https://example.com:0/hook")
            Issue.record("expected a configuration error")
        } catch let error as ConfigurationError {
            #expect(error.path == "subscribers[0].url")
            #expect(error.description.contains("port"))
        }
    }
}
