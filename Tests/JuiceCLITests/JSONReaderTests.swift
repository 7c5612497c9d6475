import JuiceMakerCore
import Testing
@testable import JuiceCLI

/// The config's JSON reader: RFC 8259 values, key order kept, errors with line and column.
@Suite struct JSONReaderTests {
    @Test func readsEveryKindOfValueKeepingKeyOrder() throws {
        let value = try JSONReader.parse(#" {"z": [1, -2.5e1, true, false, null], "a": "x\"\n\u00e9\ud83c\udf53", "m": {}} "#)
        #expect(value == .object([
            ("z", .array([.number(1), .number(-25), .bool(true), .bool(false), .null])),
            ("a", .string("x\"\né🍓")),
            ("m", .object([])),
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
    ])
    func errorsNameLineAndColumn(text: String, line: Int, column: Int) {
        do {
            _ = try JSONReader.parse(text)
            Issue.record("parsed \(text)")
        } catch {
            #expect(error.line == line && error.column == column, "\(text): \(error)")
        }
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
