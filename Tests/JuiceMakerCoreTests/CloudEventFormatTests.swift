import Foundation
import JuicePrimitives
import JuiceTestSupport
import Testing
@testable import JuiceMakerCore

@Suite("CloudEvents wire format", .tags(.unit))
struct CloudEventFormatTests {
    /// One envelope of each type, as a maker commits them.
    private func committedEnvelopes() throws -> [EventEnvelope] {
        let fixture = try Fixture()
        try fixture.maker.make(.mangoKiwi, count: 2)
        try fixture.maker.make(.strawberryBanana, count: 3)
        try fixture.maker.add(7, of: .pineapple)
        let journal = try fixture.journal
        #expect(Set(journal.map(\.event.kind)) == Set(EventKind.allCases))
        return journal
    }

    private func object(_ json: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
    }

    @Test("every envelope decodes back to an equal one")
    func roundTrip() throws {
        for envelope in try committedEnvelopes() {
            let line = CloudEventFormat.encode(envelope)
            #expect(!line.contains("\n"))
            #expect(try CloudEventFormat.decode(line) == envelope)
        }
    }

    @Test("an event read from the fleet's stream keeps the machine's sequence, with the stream's beside it")
    func fleetEventKeepsTheMachinesSequence() throws {
        for local in try committedEnvelopes() {
            let published = CloudEventFormat.encode(local)
            // Read from a stream: numbered 900 here, stored at stream sequence 77.
            let read = EventEnvelope(
                sequence: 900, id: local.id, time: local.time, source: local.source, changeID: local.changeID, event: local.event,
                publishedSequence: local.sequence, streamSequence: 77)
            let body = CloudEventFormat.encode(read)
            let fields = try object(body)
            #expect(fields["sequence"] as? String == CloudEventFormat.paddedSequence(local.sequence))
            #expect(fields["streamsequence"] as? String == "00000000000000000077")
            // The machine's text, with only the extension attribute added.
            let added = #","streamsequence":"00000000000000000077""#
            #expect(body.replacingOccurrences(of: added, with: "") == published)
            #expect(!published.contains("streamsequence"))
        }
    }

    @Test("a source needing escapes and sequences of every width survive the round trip")
    func roundTripEdges() throws {
        var ids = EventIDGenerator()
        let time = Date(timeIntervalSince1970: -310_498_200.125)
        for (sequence, source) in [(Int64(1), "/juice \"shop\"\n\\\t\u{1}"), (Int64.max, "/딸기")] {
            let envelope = EventEnvelope(
                sequence: sequence, id: ids.next(unixMilliseconds: 5), time: time, source: source,
                changeID: ids.next(unixMilliseconds: 5),
                event: .orderFailed(juice: .strawberry, count: 3, shortages: FruitAmounts(strawberry: 38, mango: 1)))
            #expect(try CloudEventFormat.decode(CloudEventFormat.encode(envelope)) == envelope)
        }
    }

    @Test("JSON strings carry no character that steers a terminal, and read back the same")
    func steeringCharactersAreEscaped() throws {
        let steering: [Unicode.Scalar] = [
            "\u{1}", "\u{1B}", "\u{7}", "\u{7F}", "\u{85}", "\u{9B}", "\u{9F}", "\u{2028}", "\u{2029}", "\u{200E}", "\u{202E}",
            "\u{2066}", "\u{2069}", "\u{61C}",
        ]
        let text = "a" + steering.map { String($0) + "x" }.joined() + "딸기🍓"
        var json = ""
        CloudEventFormat.appendQuoted(text, to: &json)
        #expect(!json.unicodeScalars.contains { TerminalControl.steers($0) }, "\(json.debugDescription)")
        #expect(json.contains("\\u009b") && json.contains("\\u202e") && json.contains("딸기🍓"), "\(json)")
        let decoded = try JSONSerialization.jsonObject(with: Data(json.utf8), options: .fragmentsAllowed) as? String
        #expect(decoded == text)
        // Every scalar the predicate does not name is written as it is (besides " and \).
        for value: UInt32 in [0x20, 0x41, 0xA0, 0x200B, 0x202F, 0xAC00] {
            let scalar = try #require(Unicode.Scalar(value))
            var one = ""
            CloudEventFormat.appendQuoted(String(scalar), to: &one)
            #expect(one == "\"" + String(scalar) + "\"")
        }
    }

    @Test("the required attributes are present with the documented values")
    func attributes() throws {
        let types = ["juicemaker.juice.made", "juicemaker.stock.changed", "juicemaker.order.failed"]
        for envelope in try committedEnvelopes() {
            let json = try object(CloudEventFormat.encode(envelope))
            #expect(json["specversion"] as? String == "1.0")
            #expect(json["id"] as? String == envelope.id.description)
            #expect(json["source"] as? String == "/juice-maker")
            #expect(json["type"] as? String == envelope.event.kind.cloudEventType)
            #expect(types.contains(json["type"] as? String ?? ""))
            #expect(json["datacontenttype"] as? String == "application/json")
            let sequence = try #require(json["sequence"] as? String)
            #expect(sequence.count == 20)
            #expect(sequence == String(repeating: "0", count: 20 - String(envelope.sequence).count) + String(envelope.sequence))
            let time = try #require(json["time"] as? String)
            #expect(RFC3339.parse(time) == envelope.time)
            #expect(time.count == 24 && time.hasSuffix("Z"))
            let data = try #require(json["data"] as? [String: Any])
            #expect(data["changeId"] as? String == envelope.changeID.description)
        }
        #expect(EventKind.stockChanged.cloudEventType == "juicemaker.stock.changed")
        #expect(EventKind.juiceMade.cloudEventType == "juicemaker.juice.made")
        #expect(EventKind.orderFailed.cloudEventType == "juicemaker.order.failed")
        #expect(CloudEventFormat.paddedSequence(42) == "00000000000000000042")
    }

    @Test("the data of each type carries its fields")
    func data() throws {
        let envelopes = try committedEnvelopes()
        let made = try object(CloudEventFormat.encode(envelopes[0]))["data"] as? [String: Any]
        #expect(made?["juice"] as? String == "mango-kiwi")
        #expect(made?["count"] as? Int == 2)
        #expect(made?["consumed"] as? [String: Int] == ["kiwi": 2, "mango": 4])
        let changed = try object(CloudEventFormat.encode(envelopes[1]))["data"] as? [String: Any]
        #expect(changed?["fruit"] as? String == "kiwi")
        #expect(changed?["from"] as? Int == 10)
        #expect(changed?["to"] as? Int == 8)
        #expect(changed?["reason"] as? String == "order")
        let failed = try object(CloudEventFormat.encode(envelopes[3]))["data"] as? [String: Any]
        #expect(failed?["shortages"] as? [String: Int] == ["strawberry": 20])
    }

    @Test("malformed input is refused with WireFormatError")
    func malformed() throws {
        let good = CloudEventFormat.encode(try committedEnvelopes()[1])
        func replacing(_ old: String, _ new: String) -> String {
            good.replacingOccurrences(of: old, with: new)
        }
        let bad = [
            "", "not json", "[]", "42", "{}",
            replacing("\"specversion\":\"1.0\"", "\"specversion\":\"0.3\""),
            replacing("juicemaker.stock.changed", "juicemaker.stock.eaten"),
            replacing("\"type\":", "\"kind\":"),
            replacing("\"id\":\"", "\"id\":\"x"),
            replacing("\"sequence\":\"0000", "\"sequence\":\"abcd"),
            replacing("\"sequence\":\"00000000000000000002\"", "\"sequence\":2"),
            // Found by FuzzCloudEvent: a signed sequence decoded, then encoded as "…000-2".
            replacing("\"sequence\":\"00000000000000000002\"", "\"sequence\":\"-0000000000000000002\""),
            replacing("\"sequence\":\"00000000000000000002\"", "\"sequence\":\"+0000000000000000002\""),
            replacing("\"sequence\":\"00000000000000000002\"", "\"sequence\":\"\""),
            replacing("\"time\":\"", "\"time\":\"yesterday"),
            replacing("\"data\":{", "\"data\":[{").replacingOccurrences(of: "}}", with: "}]}"),
            replacing("\"fruit\":\"kiwi\"", "\"fruit\":\"tomato\""),
            replacing("\"reason\":\"order\"", "\"reason\":\"theft\""),
            replacing("\"from\":10", "\"from\":10.5"),
            replacing("\"to\":8", "\"to\":\"8\""),
            replacing("\"changeId\":\"", "\"changeId\":\"z"),
        ]
        for text in bad {
            #expect(throws: WireFormatError.self, "\(text)") { try CloudEventFormat.decode(text) }
        }
        let made = CloudEventFormat.encode(try committedEnvelopes()[0])
        #expect(throws: WireFormatError.self) {
            try CloudEventFormat.decode(made.replacingOccurrences(of: "\"kiwi\":2", with: "\"apple\":2"))
        }
        #expect(throws: WireFormatError.self) {
            try CloudEventFormat.decode(made.replacingOccurrences(of: "\"juice\":\"mango-kiwi\"", with: "\"juice\":\"soup\""))
        }
    }
}

@Suite("RFC 3339 timestamps", .tags(.unit))
struct RFC3339Tests {
    @Test(
        "known instants format in UTC with milliseconds, and parse back",
        arguments: [
            (0.0, "1970-01-01T00:00:00.000Z"),
            (1_709_210_096.75, "2024-02-29T12:34:56.750Z"),
            (951_782_400, "2000-02-29T00:00:00.000Z"),
            (4_107_542_400, "2100-03-01T00:00:00.000Z"),
            (1_795_235_029.125, "2026-11-21T04:23:49.125Z"),
            (-1, "1969-12-31T23:59:59.000Z"),
            (-0.001, "1969-12-31T23:59:59.999Z"),
            (-310_498_200, "1960-02-29T06:30:00.000Z"),
            (-2_203_891_200, "1900-03-01T00:00:00.000Z"),
            (-11_670_998_400, "1600-02-29T00:00:00.000Z"),
            // date-fullyear is always four digits (RFC 3339 section 5.6).
            (-62_167_219_200, "0000-01-01T00:00:00.000Z"),
            (-61_851_600_000, "0010-01-01T00:00:00.000Z"),
            (-59_011_459_200, "0100-01-01T00:00:00.000Z"),
            (253_402_300_799.999, "9999-12-31T23:59:59.999Z"),
        ])
    func knownInstants(seconds: Double, text: String) throws {
        let date = Date(timeIntervalSince1970: seconds)
        #expect(RFC3339.format(date) == text)
        let parsed = try #require(RFC3339.parse(text))
        #expect(abs(parsed.timeIntervalSince1970 - seconds) < 0.0005)
    }

    @Test("every millisecond-precise date formats to its own millisecond and parses back equal")
    func millisecondSweep() throws {
        for base: Int64 in [-310_498_200_000, -5_000, 0, 1_795_235_029_000] {
            for milliseconds in base..<(base + 10_000) {
                let date = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
                let text = RFC3339.format(date)
                let expected = ((milliseconds % 1000) + 1000) % 1000
                guard text.dropLast().suffix(3) == String(format: "%03d", Int(expected)), RFC3339.parse(text) == date else {
                    Issue.record("\(milliseconds) ms formats as \(text)")
                    return
                }
            }
        }
    }

    @Test("offsets, lower-case separators and fractions of other lengths parse")
    func parseVariants() {
        #expect(RFC3339.parse("2024-02-29T21:34:56+09:00") == RFC3339.parse("2024-02-29T12:34:56Z"))
        #expect(RFC3339.parse("2024-02-29T07:04:56-05:30") == RFC3339.parse("2024-02-29T12:34:56Z"))
        #expect(RFC3339.parse("2024-02-29t12:34:56z") == RFC3339.parse("2024-02-29T12:34:56Z"))
        #expect(RFC3339.parse("2024-02-29T12:34:56.5Z") == RFC3339.parse("2024-02-29T12:34:56.500Z"))
        #expect(RFC3339.parse("1970-01-01T00:00:00Z") == Date(timeIntervalSince1970: 0))
        #expect(RFC3339.parse("2000-02-29T00:00:00Z") != nil)
    }

    @Test(
        "the extreme offsets that are valid parse",
        arguments: [
            ("2024-01-01T23:59:00+23:59", "2024-01-01T00:00:00Z"), ("2024-01-01T00:00:00-23:59", "2024-01-01T23:59:00Z"),
        ])
    func extremeOffsets(text: String, utc: String) {
        #expect(RFC3339.parse(text) != nil)
        #expect(RFC3339.parse(text) == RFC3339.parse(utc))
    }

    @Test("dates RFC 3339 cannot write are clamped to its first and last instants")
    func clamped() {
        #expect(RFC3339.format(Date(timeIntervalSince1970: -70_000_000_000)) == "0000-01-01T00:00:00.000Z")
        #expect(RFC3339.format(.distantFuture) == "4001-01-01T00:00:00.000Z")
        #expect(RFC3339.format(Date(timeIntervalSince1970: 300_000_000_000)) == "9999-12-31T23:59:59.999Z")
    }

    @Test(
        "malformed timestamps are refused",
        arguments: [
            "", "2024-02-29", "2024-02-29T12:34:56", "2024-02-29 12:34:56Z", "2024-13-01T00:00:00Z",
            "2024-00-01T00:00:00Z", "2024-01-32T00:00:00Z", "2024-01-01T24:00:00Z", "2024-01-01T00:60:00Z",
            "2024-01-01T00:00:00.Z", "2024-01-01T00:00:00Zjunk", "2024-01-01T00:00:00+0900", "24-01-01T00:00:00Z",
            "2024-02-30T00:00:00Z", "2023-02-29T00:00:00Z", "1900-02-29T00:00:00Z", "2024-04-31T00:00:00Z",
            // time-hour 00-23, time-minute 00-59 in the offset too (RFC 3339 section 5.6).
            "2024-01-01T00:00:00+24:00", "2024-01-01T00:00:00+09:60", "2024-01-01T00:00:00+99:99",
            "2024-01-01T00:00:00-24:00",
        ])
    func malformed(text: String) {
        #expect(RFC3339.parse(text) == nil)
    }
}
