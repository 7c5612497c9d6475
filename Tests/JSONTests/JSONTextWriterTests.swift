import JuiceJSON
import JuiceTestSupport
import Testing

/// The one writer: what it writes the parser reads back the same, and nothing in it
/// steers a terminal.
@Suite("JSONTextWriter", .tags(.unit))
struct JSONTextWriterTests {
    @Test("writer then parser gives the value back, every string, key order and number text kept", arguments: 0..<4)
    func valuesRoundTrip(seed: Int) throws {
        var random = RandomJSON(seed: UInt64(seed) &+ 0x717E)
        for numbers in [JSONParser.Options.Numbers.exactIntegers, .doubles] {
            let options = JSONParser.Options(numbers: numbers)
            for _ in 0..<300 {
                let value = random.value(depth: 4, numbers: numbers)
                for style in [JSONTextWriter.Style.compact, .indented] {
                    let text = JSONTextWriter.text(of: value, style)
                    #expect(try JSONParser.parse(text, options: options) == value, "\(text)")
                    #expect(!text.unicodeScalars.contains { JSONTextWriter.escapes($0) && $0 != "\n" }, "\(text.debugDescription)")
                    if style == .compact { #expect(!text.contains("\n")) }
                }
            }
        }
    }

    @Test("parser then writer then parser: the same value, numbers written as they were read")
    func textRoundTrips() throws {
        let text = #"{"b":[1,-0.50,2.5E+3,"x\"y\u0001",{}],"a":{"k":null,"t":true,"k":[]},"n":100000000000000000000000}"#
        for numbers in [JSONParser.Options.Numbers.exactIntegers, .doubles] {
            let options = JSONParser.Options(numbers: numbers)
            let value = try JSONParser.parse(text, options: options)
            #expect(JSONTextWriter.text(of: value) == text)
            #expect(try JSONParser.parse(JSONTextWriter.text(of: value, .indented), options: options) == value)
        }
    }

    @Test("indented: two spaces a level, \": \" after a key, empty objects and arrays on one line")
    func indented() {
        let value = JSONValue.object([
            JSONMember(key: "a", value: .array([.integer(1), .object([])])), JSONMember(key: "b", value: .array([])),
        ])
        #expect(JSONTextWriter.text(of: value, .indented) == "{\n  \"a\": [\n    1,\n    {}\n  ],\n  \"b\": []\n}")
        #expect(JSONTextWriter.text(of: value) == #"{"a":[1,{}],"b":[]}"#)
    }

    @Test("token by token: the commas where they go")
    func tokens() {
        var writer = JSONTextWriter()
        writer.beginArray()
        writer.beginObject()
        writer.member("s", "x")
        writer.member("i", -3)
        writer.key("o")
        writer.beginObject()
        writer.endObject()
        writer.endObject()
        writer.number("1.50")
        writer.bool(false)
        writer.null()
        writer.endArray()
        #expect(writer.text == #"[{"s":"x","i":-3,"o":{}},1.50,false,null]"#)
    }

    @Test("a string: escapes for quote, backslash, line breaks and every character that steers a terminal; others as they are")
    func strings() {
        #expect(JSONTextWriter.quoted("a\"b\\c\n\r\t") == #""a\"b\\c\n\r\t""#)
        #expect(JSONTextWriter.quoted("\u{0}\u{1B}\u{7F}\u{85}\u{2028}\u{202E}\u{61C}") == #""\u0000\u001b\u007f\u0085\u2028\u202e\u061c""#)
        #expect(JSONTextWriter.quoted("/é e\u{301} 딸기🍓\u{A0}") == "\"/é e\u{301} 딸기🍓\u{A0}\"")
        for value: UInt32 in 0...0x2100 {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let quoted = JSONTextWriter.quoted(String(scalar))
            #expect((try? JSONParser.parse(quoted)) == .string(String(scalar)), "\(value)")
        }
    }
}
