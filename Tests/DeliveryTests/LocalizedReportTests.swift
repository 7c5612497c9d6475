import Foundation
import JuiceDelivery
import JuiceMakerCore
import JuiceTestSupport
import Testing
import WebhookPlugin

/// What the webhook and the durable runner report exists in Korean too: each
/// report's Korean text has Hangul and no word of the English reports.
@Suite(.tags(.unit)) struct LocalizedReportTests {
    private static let englishWords: Set<String> = [
        "event", "not", "delivered", "attempt", "of", "next", "in", "it", "waits", "the", "journal",
        "gave", "up", "on", "after", "sends", "again", "answered", "endpoint", "is", "disabled",
        "delivery", "stopped", "and", "events", "wait", "resumes", "warning", "plain", "to", "another",
        "machine", "travel", "unencrypted", "use",
    ]

    /// Whether `text` has Hangul and none of `englishWords` once `data` (the URL),
    /// the `juice …` command it names and "HTTP"/"Gone" are taken out.
    private static func readsAsKorean(_ text: String, data: [String]) -> Bool {
        var rest = text
        for item in data { rest = rest.replacingOccurrences(of: item, with: " ") }
        rest = rest.replacing(#/`juice [^`]*`/#, with: " ")
        let words = rest.split { !$0.isLetter }.map { $0.lowercased() }
        let hangul = text.unicodeScalars.contains { (0xAC00...0xD7A3).contains($0.value) }
        return hangul && !words.contains { englishWords.contains($0) }
    }

    private func webhook(_ rig: Rig, url: String, schedule: [Double], name: String = "hook") throws -> Delivered<Webhook> {
        try Delivered(
            Webhook.self, configuration: section([("url", .string(url)), ("retrySchedule", .array(schedule.map { .number($0) }))]),
            context: rig.context(name: name))
    }

    @Test func failuresAndDeadLettersAreReportedInKorean() async throws {
        let server = LoopbackHTTPServer { _, _ in .status(500) }
        try server.start()
        defer { server.stop() }
        let rig = Rig.delivery()
        let plugin = try webhook(rig, url: server.url, schedule: [0.01, 0.01])
        try plugin.attach(to: rig.host)
        try rig.maker.make(.banana)
        let delivery = try #require(plugin.delivery)
        // Both events (the juice and the banana's stock change) fail; with a window they may
        // be given up on in either order, so both are waited for.
        #expect(await delivery.wait(until: generousDeadline()) { _, statistics in statistics.deadLettered >= 2 })
        await plugin.shutdown(deadline: generousDeadline())

        let english = rig.errors.all
        #expect(english.contains { $0.hasPrefix("event 1 not delivered") && $0.contains("HTTP 500") }, "\(english)")
        #expect(english.contains { $0.hasPrefix("gave up on event 1") }, "\(english)")
        let korean = rig.errors.korean
        #expect(korean.count == english.count)
        for line in korean {
            #expect(Self.readsAsKorean(line, data: [server.url]), "\(line)")
        }
        #expect(korean.contains { $0.contains("HTTP 500") && $0.contains("뒤에 다시 시도합니다") }, "\(korean)")
    }

    @Test func aDisabledEndpointAndPlainHTTPAreReportedInKorean() async throws {
        let server = LoopbackHTTPServer { _, _ in .status(410) }
        try server.start()
        defer { server.stop() }
        let rig = Rig.delivery()
        // Plain http:// to another machine draws a warning at attach; nothing listens there.
        let remote = try webhook(rig, url: "http://192.0.2.1:9/hook", schedule: [60], name: "remote")
        try remote.attach(to: rig.host)
        await remote.shutdown(deadline: generousDeadline())
        let plugin = try webhook(rig, url: server.url, schedule: [0.01])
        try plugin.attach(to: rig.host)
        try rig.maker.make(.banana)
        let delivery = try #require(plugin.delivery)
        #expect(
            await delivery.wait(until: generousDeadline()) { phase, statistics in
                statistics.failed >= 1 && phase != .delivering
            })
        await plugin.shutdown(deadline: generousDeadline())

        #expect(rig.errors.all.contains { $0.contains("410 Gone") }, "\(rig.errors.all)")
        #expect(rig.errors.all.contains { $0.hasPrefix("warning:") }, "\(rig.errors.all)")
        for line in rig.errors.korean {
            #expect(Self.readsAsKorean(line, data: [server.url, "http://192.0.2.1:9/hook", "http://", "https://", "410 Gone"]), "\(line)")
        }
    }
}
