import JuiceMakerPluginKit
import JuiceTestSupport
import Testing

@testable import JuiceCLI

/// Where the config reader says a string went wrong (`JSONStringBody`, shared with the
/// core's event parser): the line and column of the byte at fault.
@Suite(.tags(.unit)) struct JSONStringErrorTests {
    @Test(arguments: [
        (#"{"a": "x"#, 9, JSONProblem.unterminatedString),
        ("{\"a\": \"x\u{01}\"}", 9, .controlCharacter),
        (#"{"a": "\q"}"#, 8, .unknownEscape("q")),
        (#"{"a": "\u12g4"}"#, 12, .expectedHexDigits),
        (#"{"a": "\u12"#, 10, .expectedHexDigits),
        (#"{"a": "\ud800x"}"#, 8, .loneSurrogate),
        (#"{"a": "\udc00"}"#, 8, .loneSurrogate),
        (#"{"a": "\ud800\u0041"}"#, 8, .invalidSurrogatePair),
        (#"{"a": "\"#, 9, .unterminatedString),
    ])
    func aBadStringIsNamedWhereItGoesWrong(text: String, column: Int, problem: JSONProblem) {
        #expect(throws: JSONSyntaxError(line: 1, column: column, problem: problem)) { try JSONReader.parse(text) }
    }

    @Test func escapesAreDecoded() throws {
        let value = try JSONReader.parse(#"{"a": "x\"\\\/\b\f\n\r\t\u00e9\ud83c\udf53", "b": "plain"}"#)
        #expect(value == .object([("a", .string("x\"\\/\u{8}\u{C}\n\r\té🍓")), ("b", .string("plain"))]))
    }
}
