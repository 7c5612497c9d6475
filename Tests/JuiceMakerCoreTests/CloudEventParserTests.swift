import Foundation
import JuiceMakerTesting
import JuiceTestSupport
import Testing
@testable import JuiceMakerCore

/// What a reader makes of a text: the fields, or a refusal (each reader words its own).
private enum Reading: Equatable, CustomStringConvertible {
    case fields(CloudEventFields)
    case refused

    /// The core's reading (`JSONParser`, then `CloudEventFields(json:)`).
    static func core(_ text: String) -> Reading {
        (try? CloudEventFormat.decodedFields(text)).map(Reading.fields) ?? .refused
    }

    /// `JSONDecoder`'s reading, the reference.
    static func oracle(_ text: String) -> Reading {
        (try? CloudEventFormat.fieldsWithJSONDecoder(text)).map(Reading.fields) ?? .refused
    }

    var description: String {
        switch self {
        case let .fields(fields): "\(fields)"
        case .refused: "refused"
        }
    }
}

/// An event of any type with random fields, as another machine could send one.
private func randomEnvelope(_ random: inout SeededGenerator, ids: inout EventIDGenerator) -> EventEnvelope {
    func amounts() -> FruitAmounts {
        var amounts = FruitAmounts()
        for fruit in Fruit.allCases where Bool.random(using: &random) { amounts[fruit] = Int.random(in: 1...1_000, using: &random) }
        return amounts
    }
    let integers = [0, 1, -1, 7, 40, 999_999_999_999_999_999, -999_999_999_999_999_999, Int.max, Int.min, Int.min + 1]
    func integer() -> Int {
        Bool.random(using: &random) ? Int.random(in: -5_000...5_000, using: &random) : integers.randomElement(using: &random) ?? 0
    }
    let event: JuiceMakerEvent
    switch Int.random(in: 0..<3, using: &random) {
    case 0:
        event = .stockChanged(
            fruit: Fruit.allCases.randomElement(using: &random) ?? .kiwi, from: integer(), to: integer(),
            reason: StockChangeReason.allCases.randomElement(using: &random) ?? .edit)
    case 1: event = .juiceMade(juice: Juice.allCases.randomElement(using: &random) ?? .kiwi, count: integer(), consumed: amounts())
    default: event = .orderFailed(juice: Juice.allCases.randomElement(using: &random) ?? .kiwi, count: integer(), shortages: amounts())
    }
    let sources = ["/juice-maker", "/juice-maker/shop-1", "/juice \"shop\"", "/딸기", "/a\\b", "/tab\there", "/😀/\u{7F}", "/e\u{301}"]
    let milliseconds = UInt64.random(in: 0...253_402_300_799_999, using: &random)
    return EventEnvelope(
        sequence: Int64.random(in: 0...Int64.max, using: &random), id: ids.next(unixMilliseconds: milliseconds),
        time: Date(timeIntervalSince1970: Double(milliseconds) / 1000), source: sources.randomElement(using: &random) ?? "/",
        changeID: ids.next(unixMilliseconds: milliseconds), event: event)
}

/// JSON text of `value` as another writer could write it: members in a random order,
/// random whitespace, `\u` escapes of ordinary letters, and (where `extras`) unknown
/// members of every JSON type. Map members (`consumed`, `shortages`) are shuffled only.
private func scrambled(_ value: JSONValue, _ random: inout SeededGenerator, extras: Bool = true) -> String {
    var out = ""
    func space() {
        for _ in 0..<Int.random(in: 0...2, using: &random) { out += [" ", "\n", "\t", "\r", "  "].randomElement(using: &random) ?? "" }
    }
    func string(_ text: String) {
        out += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "/" where Bool.random(using: &random): out += "\\/"
            case _ where scalar.value < 0x20 || (scalar.properties.isAlphabetic && Int.random(in: 0..<4, using: &random) == 0):
                if scalar.value > 0xFFFF {
                    for unit in String(scalar).utf16 { out += "\\u" + hex(UInt32(unit)) }
                } else {
                    out += "\\u" + hex(scalar.value)
                }
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }
    func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16, uppercase: Bool.random(using: &random))
        return String(repeating: "0", count: 4 - digits.count) + digits
    }
    let extraValues = [
        "1e400", "-0.5E-3", "null", "true", "false", "[]", "{}", "\"\\ud83d\\ude00\\u0000\"", "[1,[2,{\"a\":{\"b\":[]}}]]", "{\"id\":7,\"data\":[]}",
        "123456789012345678901234567890",
    ]
    func write(_ value: JSONValue, extras: Bool) {
        space()
        switch value {
        case let .object(members):
            var members = members.map {
                (key: $0.key, text: Optional<String>.none, value: $0.value, extras: $0.key != "consumed" && $0.key != "shortages")
            }
            if extras {
                for index in 0..<Int.random(in: 0...3, using: &random) {
                    members.append((key: "x-extra\(index)", text: extraValues.randomElement(using: &random), value: .null, extras: false))
                }
            }
            members.shuffle(using: &random)
            out += "{"
            for (index, member) in members.enumerated() {
                if index > 0 { out += "," }
                space()
                string(member.key)
                space()
                out += ":"
                if let text = member.text {
                    space()
                    out += text
                    space()
                } else {
                    write(member.value, extras: extras && member.extras)
                }
            }
            space()
            out += "}"
        case let .array(items):
            out += "[" + items.map { scrambled($0, &random, extras: false) }.joined(separator: ",") + "]"
        case let .string(text): string(text)
        case let .integer(integer): out += String(integer)
        case let .number(text): out += text
        case let .bool(flag): out += flag ? "true" : "false"
        case .null: out += "null"
        }
        space()
    }
    write(value, extras: extras)
    return out
}

/// The core reads an event its fast reader leaves (`JSONParser`, not `JSONDecoder`):
/// into the fields `JSONDecoder` reads, or refused where `JSONDecoder` refuses too.
@Suite("CloudEvents without the fast reader, against JSONDecoder", .tags(.unit))
struct CloudEventParserTests {
    @Test("events re-written in another order, spacing and escapes, with unknown members, read as JSONDecoder reads them")
    func rewrittenEventsAgree() throws {
        var random = SeededGenerator(seed: 0x5EED_0001)
        var ids = EventIDGenerator()
        var rewritten = 0
        var leftByFastReader = 0
        for _ in 0..<400 {
            let envelope = randomEnvelope(&random, ids: &ids)
            let text = CloudEventFormat.encode(envelope)
            let json = try JSONParser.parse(text)
            if FastCloudEventReader.envelope(text) != nil {
                #expect(try CloudEventFormat.decodeWithoutFastReader(text) == envelope, "\(text)")
            }
            for _ in 0..<5 {
                let other = scrambled(json, &random)
                if FastCloudEventReader.envelope(other) == nil { leftByFastReader += 1 }
                let core = Reading.core(other)
                #expect(core == Reading.oracle(other), "\(other)")
                #expect(core != .refused, "\(other)")
                #expect(try CloudEventFormat.decode(other) == envelope, "\(other)")
                #expect(try CloudEventFormat.decodeWithJSONDecoder(other) == envelope, "\(other)")
                rewritten += 1
            }
        }
        // Most of them are texts the fast reader leaves: this path is what reads them.
        #expect(rewritten == 2_000 && leftByFastReader > 1_500, "\(leftByFastReader) of \(rewritten) left by the fast reader")
    }

    /// A valid event to edit, in `encode`'s key order.
    private static let base =
        #"{"specversion":"1.0","id":"0190f2a1-7b3c-7def-8123-456789abcdef","source":"/juice-maker","type":"juicemaker.juice.made","#
        + #""subject":"kiwi","time":"2026-11-21T04:23:49.123Z","datacontenttype":"application/json","sequence":"00000000000000000042","#
        + #""data":{"changeId":"0190f2a1-7b3c-7def-8123-456789abcdee","juice":"kiwi","count":1,"consumed":{"kiwi":3}}}"#

    /// `base` with its `count` (1) written as `number`, and its `consumed` kiwi (3) too.
    private static func withNumber(_ number: String) -> [String] {
        [
            base.replacingOccurrences(of: #""count":1"#, with: #""count":\#(number)"#),
            base.replacingOccurrences(of: #""kiwi":3"#, with: #""kiwi":\#(number)"#),
        ]
    }

    static let wrongShapes: [String] = {
        var texts = [
            base, "", " ", "{}", "[]", "null", "1", "\"x\"", "true", "[" + base + "]", base + " ", "\u{FEFF}" + base, "\u{FEFF}\u{FEFF}{}",
            base + "x", "{},",
        ]
        for key in ["specversion", "id", "source", "type", "time", "sequence", "data", "changeId", "juice", "count", "consumed"] {
            // A lone surrogate is refused where JSONDecoder decodes it, and only there
            // (`knownDifferences`): not as a repeated key's later value.
            let loneSurrogates = ["\"\\ud800\"", "\"\\udc00\"", "\"\\ud800\\u0041\""]
            let edits = [
                "1", "-1.5", "true", "null", "\"text\"", "[]", "[\"1\"]", "{}", "{\"kiwi\":1}", "\"\\ud83d\\ude00\"", "\"\\u0000\"", "\"a\\/b\"",
            ]
            for edit in edits + loneSurrogates {
                // The key's value replaced, repeated after it, and repeated before it.
                if let range = base.range(of: "\"\(key)\":") {
                    let after = base[range.upperBound...]
                    var depth = 0
                    var end = after.startIndex
                    var inString = false
                    var escaped = false
                    for index in after.indices {
                        let character = after[index]
                        if inString {
                            if escaped { escaped = false } else if character == "\\" { escaped = true } else if character == "\"" { inString = false }
                        } else if character == "\"" {
                            inString = true
                        } else if character == "{" || character == "[" {
                            depth += 1
                        } else if character == "}" || character == "]" {
                            if depth == 0 { end = index; break }
                            depth -= 1
                        } else if character == "," && depth == 0 {
                            end = index
                            break
                        }
                    }
                    let original = String(after[after.startIndex..<end])
                    texts.append(String(base[..<range.upperBound]) + edit + String(after[end...]))
                    if !loneSurrogates.contains(edit) {
                        texts.append(String(base[..<range.upperBound]) + original + ",\"\(key)\":" + edit + String(after[end...]))
                    }
                    texts.append(String(base[..<range.lowerBound]) + "\"\(key)\":" + edit + "," + String(base[range.lowerBound...]))
                }
            }
        }
        for number in [
            "1.0", "1e2", "1E+2", "100e-2", "-0", "-0.0", "-0e0", "0e5", "1.5", "123e-2", "-1e2", "1E-0", "0.1e1", "10.0e-1",
            "9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809", "18446744073709551616",
            "9223372036854775807.0", "9223372036854775806.0", "-9223372036854775808.0", "9.223372036854775807e18", "1e18", "1e19",
            "12345678901234567.0", "123456789012345678.0", "9007199254740993", "9007199254740993.0", "9007199254740993.5",
            "4611686018427387904.5", "4611686018427387904.0", "100000000000000000000e-2", "1.0000000000000001", "1.000000000000000000001",
            "0.99999999999999999999", "1e-400", "1e400", "-1e400", "00", "01", "-01", "+1", ".5", "1.", "1e", "1e+", "-", "--1", "0x10",
            "NaN", "Infinity", "1.2.3", "9007199254740993000000000000000000000000000e-27", "1e-99999", "9007199254740993.99999999",
            "-9007199254740993.9", "0.000000000000000000000000000000000000000000009007199254740993e45",
        ] {
            texts += withNumber(number)
        }
        // Nesting: JSONDecoder's limit is 512 objects and arrays, the document's own included.
        for depth in [510, 511, 512, 100_000] {
            texts.append(
                base.replacingOccurrences(
                    of: "{\"specversion\"",
                    with: "{\"x\":" + String(repeating: "[", count: depth) + String(repeating: "]", count: depth) + ",\"specversion\""))
        }
        texts.append(base.replacingOccurrences(of: "\"consumed\":{\"kiwi\":3}", with: "\"consumed\":{\"kiwi\":3,\"kiwi\":\"x\",\"mango\":null}"))
        texts.append(
            base.replacingOccurrences(
                of: "\"consumed\":{\"kiwi\":3}", with: "\"consumed\":{\"kiwi\":3,\"kiwi\":4,\"caf\\u00e9\":1,\"cafe\\u0301\":2}"))
        texts.append(base.replacingOccurrences(of: "\"id\":", with: "\"\\u0069d\":"))
        texts.append(base.replacingOccurrences(of: "\"id\":", with: "\"\\ud800\":1,\"id\":"))
        texts.append(base.replacingOccurrences(of: "\"id\":\"", with: "\"id\":\"\\q"))
        texts.append(base.replacingOccurrences(of: "\"id\":\"", with: "\"id\":\"\t"))
        return texts
    }()

    @Test("wrong shapes, repeated keys, numbers and surrogates: refused or read exactly as JSONDecoder does")
    func wrongShapesAgree() throws {
        var refused = 0
        for text in Self.wrongShapes {
            let core = Reading.core(text)
            #expect(core == Reading.oracle(text), "\(text.prefix(300))")
            if core == .refused { refused += 1 }
            // `decode` (the fast reader first) answers the same envelope as JSONDecoder's path.
            #expect((try? CloudEventFormat.decode(text)) == (try? CloudEventFormat.decodeWithJSONDecoder(text)), "\(text.prefix(300))")
        }
        // Both sides are exercised.
        #expect(refused > 100 && Self.wrongShapes.count - refused > 100, "refused \(refused) of \(Self.wrongShapes.count)")
    }

    @Test("numbers where an Int is read: the Int JSONDecoder reads, or refused as it refuses", arguments: 0..<4)
    func randomNumbersAgree(seed: Int) {
        var random = SeededGenerator(seed: UInt64(seed) &+ 0xA11CE)
        for _ in 0..<1_500 {
            var number = Bool.random(using: &random) ? "-" : ""
            let digits = Int.random(in: 1...22, using: &random)
            number += String(Int.random(in: 1...9, using: &random))
            for _ in 1..<digits { number += Int.random(in: 0..<3, using: &random) == 0 ? "0" : String(Int.random(in: 0...9, using: &random)) }
            if Bool.random(using: &random) {
                number +=
                    "."
                    + (0..<Int.random(in: 1...6, using: &random)).map { _ in
                        Bool.random(using: &random) ? "0" : String(Int.random(in: 0...9, using: &random))
                    }.joined()
            }
            if Bool.random(using: &random) {
                number +=
                    (Bool.random(using: &random) ? "e" : "E") + (["", "+", "-"].randomElement(using: &random) ?? "")
                    + String(Int.random(in: 0...25, using: &random))
            }
            for text in Self.withNumber(number) {
                #expect(Reading.core(text) == Reading.oracle(text), "\(number)")
            }
        }
    }

    /// Text `JSONDecoder` takes although it is not RFC 8259 JSON, or holds a lone
    /// surrogate, all in places it does not decode, and an integer with more than 38
    /// significant digits; the core refuses each. If `JSONDecoder` ever refuses one,
    /// this list (and the doc of `decodedFields`) is due.
    @Test("the known differences: JSONDecoder takes these, the core refuses them")
    func knownDifferences() {
        let member = { (text: String) in Self.base.replacingOccurrences(of: "{\"specversion\"", with: "{\"x\":\(text),\"specversion\"") }
        let texts =
            [
                member("\"\\ud800\""), member("\"\\q\""), member("\"\\u00zz\""), member("\"a\tb\""), member("01"), member("-"), member("1.2.3"),
                member("--1"), member("[1,]"), member("{\"a\":1,}"), member("{\"\\ud800\":1}"),
                Self.base.replacingOccurrences(of: "\"source\":\"/juice-maker\"", with: "\"source\":\"/juice-maker\",\"source\":\"\\udc00\""),
                Self.base.replacingOccurrences(of: "}}", with: ",}}"), Self.base.replacingOccurrences(of: "}}", with: "},}"),
                // A NUL byte makes JSONDecoder read the text as UTF-16: "\0{\0}" is "{}".
                "\u{0}{\u{0}}",
            ]
            // From 2^53 up, JSONDecoder reads a number through `Decimal`, which keeps 38
            // significant digits and drops the rest; the core reads them all.
            + Self.withNumber("9007199254740993.0000000000000000000000001")

        for text in texts {
            #expect(Reading.core(text) == .refused, "\(text.prefix(200))")
            #expect(Reading.oracle(text) != .refused, "\(text.prefix(200))")
        }
    }

    @Test("the parser keeps members in order, duplicates too, and reads every kind of value")
    func parsesValues() throws {
        let value = try JSONParser.parse(" {\"a\":[1,-0,1.5e3,\"x\\u00e9\\n\\ud83d\\ude00\",true,false,null,{}],\"a\":{},\"\":9223372036854775808}\n")
        #expect(
            value
                == .object([
                    JSONMember(
                        key: "a",
                        value: .array([.integer(1), .integer(0), .number("1.5e3"), .string("xé\n😀"), .bool(true), .bool(false), .null, .object([])])),
                    JSONMember(key: "a", value: .object([])), JSONMember(key: "", value: .number("9223372036854775808")),
                ]))
        #expect(
            value.member("a")
                == .array([.integer(1), .integer(0), .number("1.5e3"), .string("xé\n😀"), .bool(true), .bool(false), .null, .object([])]))
        #expect(try JSONParser.parse("-9223372036854775808") == .integer(Int.min))
        #expect(try JSONParser.parse("\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"") == .string("\"\\/\u{8}\u{C}\n\r\t"))
    }

    @Test("the parser refuses what RFC 8259 does not allow")
    func refusesWhatIsNotJSON() {
        for text in [
            "", " ", "{", "}", "[1,]", "{\"a\":1,}", "{,}", "[,1]", "{\"a\" 1}", "{\"a\":}", "{a:1}", "{'a':1}", "[1 2]", "01", "-01", "+1", ".5",
            "1.",
            "1e", "1e+", "-", "0x1", "NaN", "Infinity", "tru", "nul", "True", "\"\t\"", "\"\\x\"", "\"\\u12\"", "\"\\ud800\"", "\"\\udc00\"",
            "\"\\ud800\\u0041\"", "\"abc", "1 2", "{} {}", "[1] // comment", "/* c */ 1", "\u{0B}1", "\u{A0}1", "\u{0}1",
        ] {
            #expect(throws: JSONParseError.self, "\(text)") { try JSONParser.parse(text) }
        }
    }

    @Test("nesting: 512 objects and arrays are read, deeper is refused without recursion")
    func nesting() throws {
        let deepest = String(repeating: "[", count: 512) + String(repeating: "]", count: 512)
        #expect(throws: Never.self) { try JSONParser.parse(deepest) }
        for depth in [513, 1_000_000] {
            let text = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
            #expect(throws: JSONParseError.self) { try JSONParser.parse(text) }
        }
        let objects = String(repeating: "{\"a\":", count: 511) + "1" + String(repeating: "}", count: 511)
        #expect(throws: Never.self) { try JSONParser.parse("[" + objects + "]") }
        #expect(throws: JSONParseError.self) { try JSONParser.parse("[[" + objects + "]]") }
    }

    @Test("an object's id as the store's recovery reads it: what JSONDecoder reads as an object with a String id")
    func identityAgrees() {
        let texts = [
            #"{"id":"a"}"#, #"{"id":"a","id":"b"}"#, #"{"id":null}"#, #"{"id":1}"#, #"{}"#, #"[]"#, #"{"id":"a","type":"juicemaker.juice.spilled"}"#,
            #"{"i\u0064":"\u0061"}"#, #"{"id":"a","id":1}"#, #"{"id":1,"id":"a"}"#, #"{"id":"\ud800"}"#, "not json",
        ]
        for text in texts {
            #expect(CloudEventFormat.objectID(text) == CloudEventFormat.identityWithJSONDecoder(text), "\(text)")
        }
    }
}
