/// Finding and replacing literal text by its UTF-8 bytes.
///
/// The standard library's `contains(_:)`, `firstRange(of:)` and `replacing(_:with:)` for
/// strings live in the string-processing module, with the regex engine and its tables
/// (start-up rule "no regular expressions", the Performance article). These compare bytes, so a
/// match is exact in code points (as JSON keys are compared), not by canonical
/// equivalence; every caller searches for ASCII markers (`${`, `://`) or for exact values.
/// `@inlinable`, so each caller gets a copy specialised to its string types rather than
/// the generic one, whose first call builds types at run time.
extension StringProtocol {
    /// The range of the first occurrence of `text`, or nil. An empty `text` is found at
    /// the start.
    @inlinable
    package func firstRange(ofText text: some StringProtocol) -> Range<Index>? {
        let haystack = utf8
        let needle = text.utf8
        guard let first = needle.first else { return startIndex..<startIndex }
        var from = haystack.startIndex
        while let start = haystack[from...].firstIndex(of: first) {
            if haystack[start...].starts(with: needle) {
                return start..<haystack.index(start, offsetBy: needle.count)
            }
            from = haystack.index(after: start)
        }
        return nil
    }

    /// Whether `text` occurs in this string.
    @inlinable
    package func containsText(_ text: some StringProtocol) -> Bool {
        firstRange(ofText: text) != nil
    }

    /// This string with every occurrence of `text` (non-empty) replaced by
    /// `replacement`, left to right, none overlapping.
    @inlinable
    package func replacingText(_ text: some StringProtocol, with replacement: String) -> String {
        guard !text.isEmpty else { return String(self) }
        var result = ""
        var rest = self[...]
        while let found = rest.firstRange(ofText: text) {
            result += String(rest[..<found.lowerBound])
            result += replacement
            rest = rest[found.upperBound...]
        }
        result += String(rest)
        return result
    }
}
