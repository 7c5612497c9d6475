import JuiceJSON
import JuiceTestSupport
import Testing

/// What a value says of itself: its kind, and a number's `Double`.
@Suite("JSONValue", .tags(.unit))
struct JSONValueTests {
    @Test("a number's Double is read from its text, however it is spelled; other values have none")
    func doubleValue() throws {
        let options = JSONParser.Options(numbers: .doubles)
        for (text, expected) in [("10", 10.0), ("1e1", 10), ("10.0", 10), ("-0.5", -0.5), ("99999999999999999999999", 1e23)] {
            let value = try JSONParser.parse(text, options: options)
            #expect(value == .number(text), "the text is kept: \(text)")
            #expect(value.doubleValue == expected, "\(text)")
        }
        #expect(JSONValue.integer(Int.min).doubleValue == -0x1p63)
        for value: JSONValue in [.string("10"), .bool(true), .null, .array([.integer(1)]), .object([])] {
            #expect(value.doubleValue == nil, "\(value)")
        }
    }

    @Test("each kind is named as an error message says it, integers and number text alike")
    func kinds() {
        let named: [(JSONValue, JSONValue.Kind, String)] = [
            (.object([]), .object, "an object"), (.array([]), .array, "an array"), (.string(""), .string, "a string"),
            (.integer(1), .number, "a number"), (.number("1.5"), .number, "a number"), (.bool(false), .boolean, "a boolean"),
            (.null, .null, "null"),
        ]
        for (value, kind, text) in named {
            #expect(value.kind == kind && value.kind.description == text, "\(value)")
        }
    }
}
