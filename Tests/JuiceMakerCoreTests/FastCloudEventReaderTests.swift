import Foundation
import JuiceMakerTesting
import JuiceTestSupport
import Testing
@testable import JuiceMakerCore

/// The fast reader takes what `encode` writes and answers exactly what the
/// `JSONDecoder` path answers, or leaves the text to it.
@Suite("The fast CloudEvents reader", .tags(.unit))
struct FastCloudEventReaderTests {
    /// Events of every type and shape a maker commits, from a source with a machine.
    private func committedEnvelopes() throws -> [EventEnvelope] {
        let fixture = try Fixture(stock: Stock(repeating: 40))
        _ = try fixture.maker.make(.mangoKiwi, count: 2)
        _ = try fixture.maker.make(.strawberryBanana, count: 3)
        _ = try fixture.maker.add(7, of: .pineapple)
        _ = try fixture.maker.set([.strawberry: 1, .banana: 0, .kiwi: 3, .mango: 12])
        // Short of pineapple: an order that fails.
        _ = try? fixture.maker.make(.pineapple, count: 50)
        let journal = try fixture.journal
        #expect(Set(journal.map(\.event.kind)) == Set(EventKind.allCases))
        var ids = EventIDGenerator()
        let extremes = EventEnvelope(
            sequence: Int64.max, id: ids.next(unixMilliseconds: 1), time: Date(timeIntervalSince1970: -62_135_596_800),
            source: "/juice-maker/shop-1", changeID: ids.next(unixMilliseconds: 1),
            event: .stockChanged(fruit: .kiwi, from: Int.max, to: Int.min + 1, reason: .edit))
        return journal + [extremes]
    }

    @Test("every committed event is read by the fast reader, equal to what it was")
    func readsWhatEncodeWrites() throws {
        for envelope in try committedEnvelopes() {
            let text = CloudEventFormat.encode(envelope)
            let fast = FastCloudEventReader.envelope(text)
            // Int.max and Int.min + 1 have 19 digits: outside the subset, read by JSONDecoder.
            if case .stockChanged(_, let from, _, _) = envelope.event, from == Int.max {
                #expect(fast == nil)
            } else {
                #expect(fast == envelope, "\(text)")
            }
            #expect(try CloudEventFormat.decode(text) == envelope)
            #expect(try CloudEventFormat.decodeWithJSONDecoder(text) == envelope)
            #expect(try CloudEventFormat.decodeWithoutFastReader(text) == envelope)
        }
    }

    @Test("a source that needs escapes is left to JSONDecoder, and still reads back")
    func escapesFallBack() throws {
        var ids = EventIDGenerator()
        for source in ["/juice \"shop\"", "/딸기", "/a\\b", "/tab\there"] {
            let envelope = EventEnvelope(
                sequence: 3, id: ids.next(unixMilliseconds: 9), time: Date(timeIntervalSince1970: 1_700_000_000.5), source: source,
                changeID: ids.next(unixMilliseconds: 9), event: .juiceMade(juice: .kiwi, count: 1, consumed: FruitAmounts(kiwi: 3)))
            let text = CloudEventFormat.encode(envelope)
            #expect(FastCloudEventReader.envelope(text) == nil, "\(text)")
            #expect(try CloudEventFormat.decode(text) == envelope)
        }
    }

    /// Texts near the committed ones: each edit a JSON or CloudEvents edge.
    private func variants(of text: String) -> [String] {
        var texts: [String] = []
        func replacing(_ old: String, _ new: String) {
            if text.contains(old) { texts.append(text.replacingOccurrences(of: old, with: new)) }
        }
        // Whitespace JSON allows, and some it does not.
        replacing(",", " ,\n\t")
        replacing(":", " : ")
        texts.append(" \r\n" + text + "\n ")
        texts.append("\u{FEFF}" + text)
        replacing(",", "\u{0B},")
        replacing(",", "\u{A0},")
        // Numbers: leading zeros, signs, fractions, exponents, huge.
        for (old, new) in [
            ("\"count\":", "\"count\":0"), ("\"count\":", "\"count\":-"), ("\"count\":", "\"count\":+"),
            ("\"from\":", "\"from\":-0"), ("\"to\":", "\"to\":1e"), ("\"count\":1", "\"count\":1.0"), ("\"count\":1", "\"count\":1e0"),
            ("\"count\":1", "\"count\":10000000000000000000"), ("\"count\":1", "\"count\":999999999999999999"),
            ("\"count\":1", "\"count\":9999999999999999999"), ("\"from\":", "\"from\":-99999999999999999999"),
            ("\"count\":1", "\"count\":-999999999999999999"), ("\"count\":1", "\"count\":\"1\""), ("\"count\":1", "\"count\":null"),
            ("\"count\":1", "\"count\":true"), ("\"count\":1", "\"count\":[1]"),
        ] { replacing(old, new) }
        // Strings: escapes, controls, non-ASCII, wrong types.
        for (old, new) in [
            ("\"1.0\"", "\"1\\u002e0\""), ("\"1.0\"", "\"1.00\""), ("\"1.0\"", "1.0"), ("juicemaker.", "juicemaker\\/"),
            ("\"kiwi\"", "\"ki\\u0077i\""), ("\"kiwi\"", "\"KIWI\""), ("\"mango\"", "\"mangó\""), ("/juice-maker", "/juice-maker\u{1}"),
            ("/juice-maker", "/juice-maker\u{7F}"), ("\"order\"", "\"Order\""), ("\"edit\"", "\"edit \""),
            ("\"datacontenttype\":\"application/json\"", "\"datacontenttype\":7"),
            ("\"subject\":\"", "\"subject\":\"\\n"), ("Z\"", "+00:00\""), ("Z\"", "z\""), (".", ".\\"),
        ] { replacing(old, new) }
        // Ids: upper case, braces, short.
        if let range = text.range(of: "\"id\":\"") {
            let id = text[range.upperBound...].prefix(36)
            replacing(String(id), id.uppercased())
            replacing(String(id), "{" + id + "}")
            replacing(String(id), String(id.dropLast()))
        }
        // Sequence: signs, spaces, empty, overflow.
        for (old, new) in [
            ("\"sequence\":\"0", "\"sequence\":\"-"), ("\"sequence\":\"0", "\"sequence\":\"+"), ("\"sequence\":\"0", "\"sequence\":\" "),
            ("\"sequence\":\"0", "\"sequence\":\"9999999999"), ("\"sequence\":\"", "\"sequence\":\"\",\"x\":\""),
        ] { replacing(old, new) }
        // Keys: duplicated, unknown, missing, case, order, nesting.
        for key in [
            "specversion", "id", "source", "type", "subject", "time", "datacontenttype", "sequence", "data", "changeId", "fruit", "juice", "count",
            "consumed", "shortages", "from", "to", "reason",
        ] {
            replacing("\"\(key)\":", "\"\(key.uppercased())\":")
            replacing("\"\(key)\":", "\"\(key)x\":")
            replacing("\"\(key)\":", "\"\(key)\":null,\"\(key)\":")
            replacing("\"\(key)\":", "\"extra\":{\"a\":[1,2,{}]},\"\(key)\":")
        }
        replacing("{\"specversion\":\"1.0\",", "{")
        replacing("\"data\":{", "\"data\":{\"fruit\":\"kiwi\",")
        replacing("\"data\":{", "\"data\":{\"juice\":\"kiwi\",")
        replacing("\"data\":{", "\"data\":{\"consumed\":{},")
        replacing("\"consumed\":{", "\"consumed\":{\"kiwi\":1,")
        replacing("\"shortages\":{", "\"shortages\":{\"durian\":1,")
        replacing("}}", "},\"data\":{}}")
        // Truncated, doubled, trailing.
        texts.append(String(text.dropLast()))
        texts.append(text + "}")
        texts.append(text + text)
        texts.append(text + ",")
        texts.append("[" + text + "]")
        return texts
    }

    /// The same envelope, or both refusing: in the same words once the text is a JSON
    /// object of the expected shape, while each JSON reader words its own refusal of
    /// the text itself.
    private static func agree(_ answer: Result<EventEnvelope, WireFormatError>, _ reference: Result<EventEnvelope, WireFormatError>) -> Bool {
        switch (answer, reference) {
        case let (.success(envelope), .success(expected)): return envelope == expected
        case let (.failure(error), .failure(expected)):
            let shape = "not a JSON object of the expected shape"
            return error.description.hasPrefix(shape) == expected.description.hasPrefix(shape)
                && (error.description.hasPrefix(shape) || error == expected)
        default: return false
        }
    }

    @Test("on texts near the committed ones, whatever the fast reader reads JSONDecoder reads the same")
    func agreesWithJSONDecoder() throws {
        var taken = 0
        var left = 0
        for envelope in try committedEnvelopes() {
            for text in variants(of: CloudEventFormat.encode(envelope)) {
                let reference = Result { () throws(WireFormatError) in try CloudEventFormat.decodeWithJSONDecoder(text) }
                if let fast = FastCloudEventReader.envelope(text) {
                    taken += 1
                    #expect(reference == .success(fast), "\(text)")
                } else {
                    left += 1
                }
                // Whoever reads it, `decode` answers what the JSONDecoder path answers.
                #expect(Self.agree(Result { () throws(WireFormatError) in try CloudEventFormat.decode(text) }, reference), "\(text)")
            }
        }
        // Both sides of the reader are exercised: whitespace and legal numbers are taken, the rest left.
        #expect(taken > 50 && left > 500, "taken \(taken), left \(left)")
    }
}
