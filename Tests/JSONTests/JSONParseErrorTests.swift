import JuiceJSON
import JuiceTestSupport
import Testing

/// An error keeps a byte offset; the line and column a person reads are worked out from
/// it when it is shown.
@Suite("JSONParseError", .tags(.unit))
struct JSONParseErrorTests {
    /// The line and column of each byte offset in `text`, by another route: the text
    /// split into lines, each line's scalars counted.
    private func reference(_ text: String) -> [(line: Int, column: Int)] {
        var locations: [(line: Int, column: Int)] = []
        var scalars = text.unicodeScalars[...]
        if scalars.first == "\u{FEFF}" {
            scalars = scalars.dropFirst()
            locations += [(1, 1), (1, 1), (1, 1)]
        }
        for (number, line) in scalars.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            for (column, scalar) in line.enumerated() {
                for _ in 0..<UTF8.width(scalar) { locations.append((number + 1, column + 1)) }
            }
            // The line feed itself, or the end of the text.
            locations.append((number + 1, line.count + 1))
        }
        return locations
    }

    @Test("every byte offset maps to the line and column of its scalar", arguments: 0..<4)
    func offsetsMapToLinesAndColumns(seed: Int) {
        var random = SeededGenerator(seed: UInt64(seed) &+ 0x11AE)
        let pieces = ["a", " ", "\n", "\r", "\t", "é", "e\u{301}", "딸기", "🍓", "\u{FEFF}", "{", "\"", "\n\n"]
        for _ in 0..<200 {
            var text = Bool.random(using: &random) ? "\u{FEFF}" : ""
            for _ in 0..<Int.random(in: 0...30, using: &random) { text += pieces.randomElement(using: &random) ?? "" }
            let expected = reference(text)
            #expect(expected.count == text.utf8.count + 1)
            for offset in 0...text.utf8.count {
                // The bytes inside a scalar count as its start: a parser error is never there.
                let isStart = offset == text.utf8.count || text.utf8.dropFirst(offset).first.map { $0 & 0xC0 != 0x80 } ?? true
                guard isStart else { continue }
                let location = JSONParseError(offset: offset, problem: .expectedValue).location(in: text)
                #expect(location == expected[offset], "\(text.debugDescription) at \(offset)")
            }
        }
    }

    @Test("an error the parser throws is at the line and column of the byte at fault")
    func parserErrorsHaveLocations() {
        let cases: [(String, Int, Int)] = [
            ("{\n  \"a\": tru\n}", 2, 8), ("[\"e\u{301}\", x]", 1, 8), ("[\"🍓\", x]", 1, 7), ("\u{FEFF}{\n\"a\": x}", 2, 6), ("\u{FEFF}x", 1, 1),
            ("", 1, 1), ("[1,\n\n", 3, 1),
        ]
        for (text, line, column) in cases {
            do {
                _ = try JSONParser.parse(text)
                Issue.record("parsed \(text)")
            } catch {
                #expect(error.location(in: text) == (line, column), "\(text.debugDescription): \(error)")
            }
        }
    }

    @Test("the description counts bytes from 1")
    func description() {
        #expect("\(JSONParseError(offset: 0, problem: .expectedValue))" == "malformed JSON at byte 1: expected a value")
        #expect("\(JSONParseError(offset: 4, problem: .duplicateKey("a\u{1B}")))" == "malformed JSON at byte 5: duplicate key \"a\\u001b\"")
    }
}
