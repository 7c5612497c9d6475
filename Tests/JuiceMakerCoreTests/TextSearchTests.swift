import JuiceMakerCore
import JuicePrimitives
import JuiceTestSupport
import Testing

/// `firstRange(ofText:)`, `containsText` and `replacingText` search by UTF-8 bytes.
/// Over strings of whole characters (no combining marks) that is what the standard
/// library's Character-based search finds; checked against it on seeded strings.
@Suite(.tags(.unit)) struct TextSearchTests {
    private static let alphabet: [String] = ["a", "b", "$", "{", "}", "é", "한", "🍓", ":", "/"]

    private func text(_ generator: inout SeededGenerator, length: Int) -> String {
        (0..<length).map { _ in Self.alphabet[Int(generator.next() % UInt64(Self.alphabet.count))] }.joined()
    }

    @Test func agreesWithTheStandardLibraryOnWholeCharacters() {
        var generator = SeededGenerator(seed: 0x7e47)
        for _ in 0..<3_000 {
            let haystack = text(&generator, length: Int(generator.next() % 24))
            let needle = text(&generator, length: 1 + Int(generator.next() % 3))
            let ours = haystack.firstRange(ofText: needle)
            let library = haystack.firstRange(of: needle)
            #expect(ours == library, "\(haystack) / \(needle)")
            #expect(haystack.containsText(needle) == haystack.contains(needle))
            #expect(haystack.replacingText(needle, with: "*") == haystack.replacing(needle, with: "*"), "\(haystack) / \(needle)")
            // On a substring too: the indices are the base string's.
            let tail = haystack.dropFirst(2)
            #expect(tail.firstRange(ofText: needle) == tail.firstRange(of: needle))
        }
    }

    @Test func edges() {
        #expect("abc".firstRange(ofText: "") == "abc".startIndex..<"abc".startIndex)
        #expect("".firstRange(ofText: "a") == nil)
        #expect("aaa".replacingText("aa", with: "b") == "ba", "left to right, not overlapping")
        #expect("x${A}${B}".replacingText("${", with: "<") == "x<A}<B}")
        #expect("abc".replacingText("", with: "-") == "abc")
        #expect("ab".containsText("abc") == false)
    }
}
