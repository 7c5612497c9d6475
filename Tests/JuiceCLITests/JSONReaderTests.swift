import JuiceJSON
import JuiceMakerCore
import JuiceTestSupport
import Testing
@testable import JuiceCLI

/// The config's JSON reader: RFC 8259 values, key order kept, errors with line and column.
@Suite(.tags(.unit)) struct JSONReaderTests {
    @Test func readsEveryKindOfValueKeepingKeyOrder() throws {
        let value = try JSONReader.parse(#" {"z": [1, -2.5e1, true, false, null], "a": "x\"\n\u00e9\ud83c\udf53", "m": {}} "#)
        #expect(
            value
                == .object([
                    // Numbers as written, not as the Double they read as.
                    ("z", .array([.number("1"), .number("-2.5e1"), .bool(true), .bool(false), .null])),
                    ("a", .string("x\"\né🍓")),
                    ("m", .object([JSONMember]())),
                ]))
    }

    @Test func keepsUTF8Text() throws {
        #expect(try JSONReader.parse(#""딸기쥬스""#) == .string("딸기쥬스"))
    }

    @Test(arguments: [
        ("{\"a\": 1,}", 1, 9),
        ("{\n  \"a\": tru\n}", 2, 8),
        ("[1 2]", 1, 4),
        ("{\"a\": 1, \"a\": 2}", 1, 10),
        ("\"딸기\n\"", 1, 4),
        ("01", 1, 1),
        ("", 1, 1),
        ("{} x", 1, 4),
        ("// comment\n{}", 1, 1),
        // Columns count Unicode scalars from the line start (README, Config): a combining
        // accent is a column of its own, an emoji one column, and a BOM none.
        ("[\"e\u{301}\", x]", 1, 8),
        ("[\"🍓\", x]", 1, 7),
        ("\u{FEFF}[1 2]", 1, 4),
        ("\u{FEFF}{\n\"a\": x}", 2, 6),
        ("\u{FEFF}x", 1, 1),
        ("{\"a\": 1, \"\\u0061\": 2}", 1, 10),
    ])
    func errorsNameLineAndColumn(text: String, line: Int, column: Int) {
        do {
            _ = try JSONReader.parse(text)
            Issue.record("parsed \(text)")
        } catch {
            #expect(error.line == line && error.column == column, "\(text): \(error)")
        }
    }

    @Test func keysAreComparedByCodePointNotByCanonicalEquivalence() throws {
        // RFC 8259 section 8.3: "é" as one code point and as e + U+0301 are two keys.
        let value = try JSONReader.parse(#"{"\u00e9": 1, "e\u0301": 2, "\u00e9\u0301": 3}"#)
        guard case .object(let members) = value else {
            Issue.record("not an object: \(value)")
            return
        }
        #expect(members.map { Array($0.key.unicodeScalars) } == [["\u{E9}"], ["e", "\u{301}"], ["\u{E9}", "\u{301}"]])
    }

    @Test func manyKeysAndEscapesAndLongTextParseWhole() throws {
        // The inputs that were quadratic (40,000 keys; 1,000,000 escapes); juice-bench json times them.
        let keys = (0..<40_000).map { "\"k\($0)\": \($0)" }.joined(separator: ",")
        guard case .object(let members) = try JSONReader.parse("{" + keys + "}") else {
            Issue.record("not an object")
            return
        }
        #expect(members.count == 40_000 && members.last?.key == "k39999" && members.last?.value == .number(39_999))
        let escapes = try JSONReader.parse("\"" + String(repeating: "\\n", count: 1_000_000) + "x\"")
        #expect(escapes == .string(String(repeating: "\n", count: 1_000_000) + "x"))
        let text = String(repeating: "딸기 strawberry ", count: 100_000)
        #expect(try JSONReader.parse("\"" + text + "\"") == .string(text))
    }

    @Test func refusesDeepNesting() {
        #expect(throws: JSONSyntaxError.self) { try JSONReader.parse(String(repeating: "[", count: 200)) }
    }

    @Test func writerRoundTrips() throws {
        let text = #"{"b":[1,2.5,"x\"y"],"a":{"k":null,"t":true}}"#
        #expect(JSONWriter.compact(try JSONReader.parse(text)) == text)
        #expect(try JSONReader.parse(JSONWriter.pretty(try JSONReader.parse(text))) == (try JSONReader.parse(text)))
    }
}
