import Foundation
import JuiceMakerCore
import JuiceTestSupport
import Testing
import NATSClient

/// Hostile stream content, against a real `nats-server -js`: each fleet reader skips
/// every message that is not a machine's event with one escaped stderr line, and none
/// of it reaches the terminal raw or changes `juice fleet stock`.
@Suite(.tags(.nats, .process), .notInUnitRun, .requiresNATS, .serialized)
struct FleetHostileStreamTests {
    /// Messages no machine could have published: (subject, body). Built from `template`,
    /// one of shop-a's `stock.changed` events (kiwi) as JSON.
    static func hostileMessages(_ template: [String: Any]) throws -> [(String, String)] {
        func changed(_ edit: (inout [String: Any], inout [String: Any]) -> Void) throws -> String {
            var event = template
            var data = event["data"] as? [String: Any] ?? [:]
            edit(&event, &data)
            event["data"] = data
            return String(decoding: try JSONSerialization.data(withJSONObject: event), as: UTF8.self)
        }
        let kiwi = "juicemaker.shop-a.stock.changed.kiwi"
        let good = try changed { _, _ in }
        return [
            (kiwi, "not json"),
            (kiwi, #"{"hello":"world"}"#),
            (kiwi, ""),
            (kiwi, String(repeating: "[", count: 5000) + String(repeating: "]", count: 5000)),
            (kiwi, good.replacingOccurrences(of: #""to":"#, with: #""to":1000000000000000000000000000000,"x":"#)),
            ("juicemaker.shop-a.stock.changed.durian", try changed { _, data in data["fruit"] = "durian" }),
            (kiwi, try changed { event, _ in event["specversion"] = "2.0" }),
            (kiwi, try changed { event, _ in event["id"] = nil }),
            (kiwi, try changed { event, _ in event["time"] = "yesterday" }),
            (kiwi, try changed { event, _ in event["type"] = "juicemaker.\u{1B}[2Jwiped" }),
            (kiwi, try changed { _, data in data["to"] = -5 }),
            (kiwi, try changed { _, data in (data["from"], data["to"], data["reason"]) = (5, 999, "order") }),
            (kiwi, try changed { event, _ in event["source"] = "/juice-maker/m5" }),
            (kiwi, try changed { event, _ in event["source"] = "/elsewhere\u{9B}31m" }),
            (
                "juicemaker.evil7.stock.changed.banana",
                try changed { event, data in (event["source"], data["fruit"], data["to"]) = ("/juice-maker/m5", "banana", 777) }
            ),
            ("juicemaker.evil\u{1B}]0;PWNED\u{07}.stock.changed.kiwi", good),
            ("juicemaker.shop-a.juice.made.kiwi", good),
        ]
    }

    /// Whether `text` holds a character that steers a terminal, besides the line ends.
    static func steers(_ text: String) -> Bool {
        text.unicodeScalars.contains { $0 != "\n" && TerminalControl.steers($0) }
    }

    /// The `skipped stream sequence N` numbers in `stderr`, one per line.
    static func skippedSequences(_ stderr: String) -> [Int] {
        stderr.split(separator: "\n").compactMap { line in
            guard let range = line.range(of: "skipped stream sequence ") else { return nil }
            return Int(line[range.upperBound...].prefix { $0.isNumber })
        }
    }

    @Test(.timeLimit(.minutes(2)))
    func everyReaderSkipsEachHostileMessageWithOneEscapedLine() async throws {
        let server = try await NATSServerProcess.started()
        defer { server.stop() }
        let machine = try JuiceSandbox.fleetMachine("shop-a", subscribers: FleetIntegrationTests.natsSubscriber(server.url))
        for fruit in ["kiwi", "banana"] { #expect(try await machine.running(["stock", "add", fruit, "3"]).status == 0) }
        #expect(try await machine.running(["order", "kiwi"]).status == 0)
        #expect(try await machine.running(["deliver"]).status == 0, "\(machine.errors)")
        let realIDs = Set(try await machine.eventIDs())
        let line = try #require(
            try await machine.running(["events", "--json", "--type", "stockChanged", "--limit", "1"]).stdout.split(separator: "\n").first)
        let template = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        let hostile = try Self.hostileMessages(template)
        let connection = try server.connect()
        defer { connection.close() }
        let before = try connection.streamMessageCount("JUICEMAKER")
        for (subject, body) in hostile {
            try connection.publish(subject: subject, body: Array(body.utf8), headers: [], messageID: UUID().uuidString)
        }
        let hostileSequences = Set((Int(before) + 1)...(Int(before) + hostile.count))
        // fleet watch, JSON: the real events on stdout, one line per hostile message on stderr.
        let viewer = try JuiceSandbox.fleetMachine("viewer", subscribers: "[]", extra: #""fleet": {"url": "\#(server.url)"}"#)
        let watch = try viewer.start(["fleet", "watch", "--since", "all", "--json"], inputFile: "/dev/null")
        _ = await eventually(within: .seconds(30)) { Self.skippedSequences(watch.stderr).count >= hostile.count }
        _ = await watch.terminated()
        let (stdout, stderr) = (watch.stdout, watch.stderr)
        let shown = stdout.split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["id"] as? String
        }
        #expect(Set(shown) == realIDs && shown.count == realIDs.count, "\(stdout)")
        #expect(Self.skippedSequences(stderr).sorted() == hostileSequences.sorted(), "\(stderr)")
        #expect(!Self.steers(stderr) && !Self.steers(stdout), "\(stderr.debugDescription)")
        #expect(stderr.contains(#"evil\e]0;PWNED\a"#) || stderr.contains(#"evil\e]0;PWNED\u{7}"#), "\(stderr)")
        // fleet stock: the machine's own stock, whatever the stream holds besides.
        let stocker = try JuiceSandbox.fleetMachine("stocker", subscribers: "[]", extra: #""fleet": {"url": "\#(server.url)"}"#)
        let result = try await stocker.running(["fleet", "stock", "--json"])
        let (status, output) = (result.status, result.stdout)
        #expect(status == 0, "\(stocker.errors)")
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [[String: Any]], "\(output)")
        #expect(rows.map { $0["machine"] as? String } == ["shop-a"], "\(output)")
        let local = try #require(
            try JSONSerialization.jsonObject(with: Data(try await machine.running(["stock", "--json"]).stdout.utf8)) as? [String: Int])
        let shownStock = try #require(rows.first?["stock"] as? [String: Int])
        #expect(shownStock["kiwi"] == local["kiwi"] && shownStock["banana"] == local["banana"], "\(output)")
        let stockSkipped = Self.skippedSequences(stocker.errors)
        #expect(!stockSkipped.isEmpty && Set(stockSkipped).count == stockSkipped.count, "\(stocker.errors)")
        #expect(Set(stockSkipped).isSubset(of: hostileSequences) && !Self.steers(stocker.errors), "\(stocker.errors)")
    }

    @Test(.timeLimit(.minutes(2)))
    func fleetStockAgesByTheStreamsClockAndFlagsAClockAhead() async throws {
        let server = try await NATSServerProcess.started()
        defer { server.stop() }
        let machine = try JuiceSandbox.fleetMachine("m9", subscribers: "[]")
        #expect(try await machine.running(["stock", "add", "kiwi", "3"]).status == 0)
        let line = try #require(try await machine.running(["events", "--json", "--limit", "1"]).stdout.split(separator: "\n").first)
        // The machine's clock says 2099: published as it would be, by hand.
        let future = line.replacingOccurrences(
            of: #""time":"\d{4}-"#, with: #""time":"2099-"#, options: .regularExpression)
        #expect(future.contains("\"time\":\"2099-"))
        let connection = try server.connect()
        defer { connection.close() }
        try connection.ensureStream("JUICEMAKER", subjects: "juicemaker.>", replicas: 1)
        try connection.publish(subject: "juicemaker.m9.stock.changed.kiwi", body: Array(future.utf8), headers: [], messageID: UUID().uuidString)
        let result = try await machine.running(["fleet", "stock", "--json", "--nats", server.url])
        let (status, output) = (result.status, result.stdout)
        #expect(status == 0, "\(machine.errors)")
        let row = try #require((try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [[String: Any]])?.first, "\(output)")
        let updated = try #require(row["updated"] as? String)
        #expect(!updated.hasPrefix("2099"), "the stream's clock, not the machine's: \(output)")
        #expect((row["clockAheadSeconds"] as? Double ?? 0) > 365 * 86400, "\(output)")
        let table = try await machine.running(["fleet", "stock", "--nats", server.url]).stdout
        #expect(table.contains("ahead"), "\(table)")
    }
}
