/// Where `needle` first occurs in `text` (for asserting the order of a transcript).
func position(of needle: String, in text: String) -> String.Index? {
    text.range(of: needle)?.lowerBound
}

/// How many times `needle` occurs in `text`.
func occurrences(of needle: String, in text: String) -> Int {
    text.components(separatedBy: needle).count - 1
}
