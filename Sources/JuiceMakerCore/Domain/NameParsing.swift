/// A name the user typed that matches no fruit or juice.
public struct UnknownNameError: Error, Sendable, Equatable {
    public enum Kind: String, Sendable { case fruit, juice }
    /// What was being looked for.
    public let kind: Kind
    /// What the user typed.
    public let input: String
    /// The closest name, when one is close enough to be a typo: its id (`mango-kiwi`),
    /// or for a name typed in Hangul the Korean name it is closest to (`망고키위쥬스`).
    public let suggestion: String?
}

extension Fruit {
    /// Parses an id, an English or Korean name, case-insensitively (`Kiwi`, `키위`).
    public static func parse(_ text: String) throws(UnknownNameError) -> Fruit {
        let candidates = Fruit.allCases.map { fruit in
            (fruit, [fruit.id, fruit.englishName, fruit.koreanName])
        }
        return try NameMatcher.match(text, kind: .fruit, candidates: candidates)
    }
}

extension Juice {
    /// Parses an id (`mango-kiwi`), an English name (`Mango Kiwi Juice`) or a Korean
    /// name (`망고키위쥬스`, also spelled `망고키위주스` or without `쥬스`),
    /// case-insensitively. A typo gets a suggestion.
    public static func parse(_ text: String) throws(UnknownNameError) -> Juice {
        let candidates = Juice.allCases.map { juice -> (Juice, [String]) in
            let korean = juice.koreanName
            let koreanStem = String(korean.dropLast(2))
            var names = [juice.id, juice.englishName, korean, koreanStem + "주스", koreanStem]
            if juice == .strawberryBanana { names += ["딸기바나나쥬스", "딸기바나나주스", "딸기바나나"] }
            return (juice, names)
        }
        return try NameMatcher.match(text, kind: .juice, candidates: candidates)
    }
}

/// The did-you-mean rule of juice and fruit names, for other names a person types
/// (command names: `ordr` → `order`).
package enum NameSuggestion {
    /// The name in `names` closest to `text`, when it is close enough to be a typo
    /// (an edit distance of at most a third of its length, between 1 and 3).
    package static func closest(to text: String, among names: [String]) -> String? {
        let wanted = Array(NameMatcher.normalize(text))
        var best: (name: String, distance: Int)?
        for name in names {
            let distance = NameMatcher.distance(wanted, Array(NameMatcher.normalize(name)))
            if distance < (best?.distance ?? Int.max) { best = (name, distance) }
        }
        return best.flatMap { $0.distance <= NameMatcher.tolerance(wanted.count) ? $0.name : nil }
    }
}

/// Exact matching after normalisation, then an edit-distance suggestion.
enum NameMatcher {
    /// Lowercased, trimmed, with spaces and underscores as hyphens.
    static func normalize(_ text: String) -> String {
        let lowered = text.lowercased().split(whereSeparator: { $0 == " " || $0 == "_" || $0 == "-" || $0 == "\t" })
        // Joined by hand, String to String, not with `joined(separator:)` (start-up
        // rule "no conformance lookups at start", the Performance article).
        var normalized = ""
        normalized.reserveCapacity(text.utf8.count)
        for (index, part) in lowered.enumerated() {
            if index > 0 { normalized += "-" }
            normalized += String(part)
        }
        return normalized
    }

    static func match<Value>(
        _ text: String, kind: UnknownNameError.Kind, candidates: [(Value, [String])]
    ) throws(UnknownNameError) -> Value {
        let wanted = normalize(text)
        for (value, names) in candidates where names.contains(where: { normalize($0) == wanted }) {
            return value
        }
        var best: (id: String, distance: Int)?
        let typedInHangul = wanted.contains(where: isHangul)
        for (value, names) in candidates {
            for name in names {
                let distance = distance(Array(wanted), Array(normalize(name)))
                if distance < (best?.distance ?? Int.max) {
                    best = (typedInHangul ? name : idOf(value, fallback: name), distance)
                }
            }
        }
        let suggestion = best.flatMap { $0.distance <= tolerance(wanted.count) ? $0.id : nil }
        throw UnknownNameError(kind: kind, input: text, suggestion: suggestion)
    }

    /// How far a typed name may be from a known one to be suggested.
    static func tolerance(_ length: Int) -> Int {
        max(1, min(3, length / 3))
    }

    private static func idOf<Value>(_ value: Value, fallback: String) -> String {
        if let fruit = value as? Fruit { return fruit.id }
        if let juice = value as? Juice { return juice.id }
        return fallback
    }

    /// How far `typed` is from `name`: the edit distance, where for Hangul names
    /// moving one part past the next counts as one edit, as Korean compounds are
    /// typed in the other order (`키위망고쥬스` for `망고키위쥬스`: 1, not 4).
    static func distance(_ typed: [Character], _ name: [Character]) -> Int {
        var best = editDistance(typed, name)
        // Hangul names are a few syllables: every pair of neighbouring parts is tried.
        guard best > 1, name.count <= 16, name.contains(where: isHangul), typed.contains(where: isHangul) else { return best }
        for start in 0..<name.count {
            for middle in (start + 1)..<max(start + 1, name.count) {
                for end in (middle + 1)...name.count {
                    let moved = Array(name[..<start]) + name[middle..<end] + name[start..<middle] + name[end...]
                    best = min(best, 1 + editDistance(typed, moved))
                }
            }
        }
        return best
    }

    private static func isHangul(_ character: Character) -> Bool {
        character.unicodeScalars.first.map { (0xAC00...0xD7A3).contains($0.value) } ?? false
    }

    /// Levenshtein distance over characters.
    static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
                current[j] = min(previous[j] + 1, current[j - 1] + 1, substitution)
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}
