import JuiceJSON
import JuiceTestSupport
import Testing

/// The one parser: RFC 8259 strictly, and each option doing what it says.
@Suite("JSONParser", .tags(.unit))
struct JSONParserTests {
    private static let config = JSONParser.Options(duplicateKeys: .refuse, maximumDepth: 64, numbers: .doubles)

    private func problem(_ text: String, _ options: JSONParser.Options = .init()) -> JSONParseError? {
        do {
            _ = try JSONParser.parse(text, options: options)
            return nil
        } catch {
            return error
        }
    }

    @Test("every kind of value, members in order, escapes decoded, a byte-order mark skipped")
    func readsValues() throws {
        let text = "\u{FEFF} {\"b\":[1,-0,1.5e3,\"x\\u00e9\\n\\ud83d\\ude00\",true,false,null,{}],\"a\":{\"\":-9223372036854775808}}\n"
        #expect(
            try JSONParser.parse(text)
                == .object([
                    JSONMember(
                        key: "b",
                        value: .array([.integer(1), .integer(0), .number("1.5e3"), .string("xé\n😀"), .bool(true), .bool(false), .null, .object([])])),
                    JSONMember(key: "a", value: .object([JSONMember(key: "", value: .integer(Int.min))])),
                ]))
    }

    @Test("what RFC 8259 does not allow is refused, under either policy")
    func refusesWhatIsNotJSON() {
        for text in [
            "", " ", "{", "}", "[1,]", "{\"a\":1,}", "{,}", "[,1]", "{\"a\" 1}", "{\"a\":}", "{a:1}", "[1 2]", "01", "-01", "+1", ".5", "1.",
            "1e", "1e+", "-", "0x1", "NaN", "tru", "True", "\"\t\"", "\"\\x\"", "\"\\u12\"", "\"\\ud800\"", "\"\\udc00\"", "\"abc", "1 2",
            "[1] // c", "\u{0B}1", "\u{A0}1", "\u{FEFF}\u{FEFF}1",
        ] {
            #expect(problem(text) != nil, "\(text)")
            #expect(problem(text, Self.config) != nil, "\(text)")
        }
    }

    @Test(
        "errors are at the byte at fault",
        arguments: [
            ("[1,]", 3, JSONParseError.Problem.expectedValue),
            ("{\"a\" 1}", 5, .expectedColon),
            ("{1}", 1, .expectedKey),
            ("[1 2]", 3, .expectedCommaOrBracket),
            ("{\"a\":1 2}", 7, .expectedCommaOrBrace),
            ("-01", 1, .leadingZero),
            ("-", 1, .expectedDigit),
            ("1.x", 2, .expectedFractionDigit),
            ("1e+", 3, .expectedExponentDigit),
            ("\"ab", 3, .unterminatedString),
            ("\"a\u{1}\"", 2, .controlCharacter),
            ("\"a\\qb\"", 2, .unknownEscape(UInt8(ascii: "q"))),
            ("\"\\u12g4\"", 5, .expectedHexDigits),
            ("\"x\\ud800\"", 2, .loneSurrogate),
            ("\"x\\ud800\\u0041\"", 2, .invalidSurrogatePair),
            ("1 x", 2, .textAfterValue),
            ("\u{FEFF}x", 3, .expectedValue),
            ("[\"딸기\", x]", 11, .expectedValue),
        ])
    func errorOffsets(text: String, offset: Int, problem: JSONParseError.Problem) {
        #expect(self.problem(text) == JSONParseError(offset: offset, problem: problem))
    }

    @Test("a repeated key: kept in order, or refused at its quote; keys compared by code point")
    func duplicateKeys() throws {
        let text = "{\"a\":1, \"\\u00e9\":2, \"e\\u0301\":3, \"a\":4}"
        let kept = try JSONParser.parse(text)
        #expect(kept.member("a") == .integer(1))
        guard case .object(let members) = kept else { return }
        #expect(members.map(\.key).count == 4)
        #expect(problem(text, Self.config) == JSONParseError(offset: 33, problem: .duplicateKey("a")))
        // Canonically equivalent, not the same code points: two keys.
        #expect(throws: Never.self) { try JSONParser.parse("{\"\\u00e9\":2, \"e\\u0301\":3}", options: Self.config) }
        // Past 16 keys the set takes over; a repeat is found the same.
        for count in [15, 16, 17, 40] {
            let keys = (0..<count).map { "\"k\($0)\":\($0)" }.joined(separator: ",")
            #expect(throws: Never.self) { try JSONParser.parse("{" + keys + "}", options: Self.config) }
            for repeated in [0, count - 1] {
                let text = "{" + keys + ",\"k\(repeated)\":0}"
                #expect(problem(text, Self.config) == JSONParseError(offset: keys.utf8.count + 2, problem: .duplicateKey("k\(repeated)")))
            }
        }
        // Each object has its own keys.
        #expect(throws: Never.self) { try JSONParser.parse("{\"a\":{\"a\":{\"a\":1}},\"b\":{\"a\":2}}", options: Self.config) }
    }

    @Test("depth: exactly the maximum of objects and arrays nested is read, one more refused at its bracket", arguments: [1, 2, 64, 512])
    func depth(maximum: Int) {
        let options = JSONParser.Options(maximumDepth: maximum)
        for (open, close) in [("[", "]"), ("{\"k\":", "}")] {
            let deepest = String(repeating: open, count: maximum - 1) + "[1]" + String(repeating: close, count: maximum - 1)
            #expect(problem(deepest, options) == nil)
            let deeper = String(repeating: open, count: maximum) + "[1]" + String(repeating: close, count: maximum)
            #expect(problem(deeper, options) == JSONParseError(offset: open.utf8.count * maximum, problem: .nestedTooDeep(maximum)))
        }
    }

    @Test("a million brackets are refused without recursing")
    func deepInput() {
        let text = String(repeating: "[", count: 1_000_000) + String(repeating: "]", count: 1_000_000)
        #expect(problem(text) == JSONParseError(offset: 512, problem: .nestedTooDeep(512)))
        #expect(problem(text, JSONParser.Options(maximumDepth: 10_000)) == JSONParseError(offset: 10_000, problem: .nestedTooDeep(10_000)))
    }

    @Test("numbers keep their text: as written, or exact integers", arguments: 0..<4)
    func numbers(seed: Int) throws {
        var random = RandomJSON(seed: UInt64(seed) &+ 0x4E55)
        for _ in 0..<500 {
            let text = random.numberText()
            #expect(try JSONParser.parse(text, options: Self.config) == .number(text))
            let exact = try JSONParser.parse("[" + text + "]")
            #expect(exact == .array([random.number(text, .exactIntegers)]), "\(text)")
        }
        #expect(try JSONParser.parse("9223372036854775807") == .integer(Int.max))
        #expect(try JSONParser.parse("9223372036854775808") == .number("9223372036854775808"))
        #expect(try JSONParser.parse("-9223372036854775809") == .number("-9223372036854775809"))
        #expect(try JSONParser.parse("1e400") == .number("1e400"))
        #expect(problem("[0, 1e400]", Self.config) == JSONParseError(offset: 4, problem: .numberOutOfRange))
        #expect(problem("[0, -1e400]", Self.config) == JSONParseError(offset: 4, problem: .numberOutOfRange))
        #expect(try JSONParser.parse("1e-400", options: Self.config) == .number("1e-400"))
    }
}
