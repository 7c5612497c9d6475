import Foundation
import JuiceMakerCore
import JuiceTestSupport
import Testing
import NATSClient

/// The stream is written by other machines, so `juice fleet watch` treats it as
/// untrusted input: nothing from it reaches the terminal raw, and a message that is
/// not a machine's event is skipped with one escaped line on stderr.
@Suite(.tags(.nats, .process), .notInUnitRun, .requiresNATS, .serialized)
struct FleetHostileInputTests {
    /// Whether `text` holds a character that steers a terminal, besides the line ends.
    static func steers(_ text: String) -> Bool {
        text.unicodeScalars.contains { $0 != "\n" && TerminalControl.steers($0) }
    }

    @Test(.timeLimit(.minutes(2)))
    func aHostileSubjectAndBodyAreShownEscaped() async throws {
        let server = try await NATSServerProcess.started()
        defer { server.stop() }
        let machine = try await JuiceSandbox.publishing("shop-a", to: server)
        // Two events (the juice, the kiwi it took). The last one's JSON is sent again by a
        // "machine" whose subject token holds an OSC sequence, with a line break between
        // its members, a raw C1 CSI in an extension attribute, and a source holding a CSI,
        // a right-to-left override and a line separator (all valid JSON).
        let line = try #require(try await machine.running(["events", "--json", "--limit", "1"]).stdout.split(separator: "\n").first)
        let hostileBody = ("{\n\"x\":\"\u{9B}31mred\"," + line.dropFirst())
            .replacingOccurrences(of: "/juice-maker/shop-a\"", with: "/juice-maker/shop-a\u{9B}2J\u{202E}\u{2028}\"")
        #expect(hostileBody.contains("\u{202E}"))
        let hostileMachine = "evil\u{1B}]0;PWNED\u{07}"
        let connection = try server.connect()
        defer { connection.close() }
        let duplicate = try connection.publish(
            subject: "juicemaker.\(hostileMachine).stock.changed.kiwi", body: Array(hostileBody.utf8),
            headers: [("content-type", "application/cloudevents+json")], messageID: UUID().uuidString)
        #expect(!duplicate)
        for json in [false, true] {
            let watch = try machine.start(
                ["fleet", "watch", "--since", "all", "--nats", server.url] + (json ? ["--json"] : []), inputFile: "/dev/null")
            // Until the hostile message's stderr line is out (after every real one, as it came last).
            _ = await eventually(within: .seconds(15)) { watch.stderr.contains("skipped") }
            _ = await watch.terminated()
            let text = watch.stdout
            let errors = watch.stderr
            #expect(!Self.steers(text) && !Self.steers(errors), "\(text.debugDescription) \(errors.debugDescription)")
            let lines = text.split(separator: "\n")
            // The machine's two events, each a JSON object or a notifier line; the hostile one only on stderr.
            #expect(!text.contains("evil"), "\(text.debugDescription)")
            if json {
                #expect(lines.count == 2 && lines.allSatisfy { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) is [String: Any] })
            }
            let skipped = errors.split(separator: "\n").filter { $0.contains("skipped stream sequence 3, subject juicemaker.evil") }
            #expect(skipped.count == 1 && errors.contains(#"evil\e]0;PWNED"#), "\(errors.debugDescription)")
        }
    }
}
