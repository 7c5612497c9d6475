/// URLs in messages and `config show` never carry a secret: every URL in a text, each
/// of a comma-separated server list too, is shown as its scheme, host, port and path,
/// with what may hold a secret masked.
package enum URLCredentials {
    /// `text` with every URL in it shown without its secrets:
    /// - `user:password@` becomes `***@` (everything up to the URL's last `@`);
    /// - every query value becomes `***` (an item without `=` is replaced whole);
    /// - a fragment becomes `#***`;
    /// - a path segment that looks like a token (eight or more characters mixing letters
    ///   and digits, or twenty or more of any) becomes `***`.
    /// Text around the URLs is unchanged.
    package static func redacted(_ text: String) -> String {
        guard text.firstRange(ofText: "://") != nil else { return text }
        var result = ""
        var rest = text[...]
        while let scheme = rest.firstRange(ofText: "://") {
            // The URL runs from its scheme's letters to the first space, comma or quote.
            let schemeStart =
                rest[..<scheme.lowerBound].lastIndex { !($0.isLetter || $0.isNumber || "+-.".contains($0)) }
                .map { rest.index(after: $0) } ?? rest.startIndex
            result += rest[..<schemeStart]
            let end = rest[scheme.upperBound...].firstIndex { $0 == " " || $0 == "," || $0 == "\"" || $0 == "'" || $0 == "\n" } ?? rest.endIndex
            result += redactedURL(rest[schemeStart..<end], afterScheme: scheme.upperBound)
            rest = rest[end...]
        }
        return result + rest
    }

    /// One URL, `url[..<afterScheme]` being `scheme://`.
    private static func redactedURL(_ url: Substring, afterScheme: Substring.Index) -> String {
        var result = String(url[..<afterScheme])
        var rest = url[afterScheme...]
        // Credentials: up to the URL's last `@`, so a password holding `/`, `?` or `#` is
        // masked whole (an `@` in a query masks its host too: hidden, never shown).
        if let at = rest.lastIndex(of: "@") {
            result += "***@"
            rest = rest[rest.index(after: at)...]
        }
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        result += rest[..<authorityEnd]
        rest = rest[authorityEnd...]
        let fragment = rest.firstIndex(of: "#") ?? rest.endIndex
        let question = rest[..<fragment].firstIndex(of: "?") ?? fragment
        let path = rest[..<question].split(separator: "/", omittingEmptySubsequences: false).map { segment in
            looksLikeToken(segment) ? "***" : String(segment)
        }
        result += path.joined(separator: "/")
        if question < fragment {
            let query = rest[rest.index(after: question)..<fragment]
            let items = query.split(separator: "&", omittingEmptySubsequences: false).map { item -> String in
                if item.isEmpty { return "" }
                guard let equals = item.firstIndex(of: "=") else { return "***" }
                return item[...equals] + "***"
            }
            result += "?" + items.joined(separator: "&")
        }
        if fragment < rest.endIndex { result += "#***" }
        return result
    }

    /// Whether a path segment could be a token: long, or mixing letters and digits.
    private static func looksLikeToken(_ segment: Substring) -> Bool {
        if segment.count >= 20 { return true }
        guard segment.count >= 8 else { return false }
        return segment.contains(where: \.isLetter) && segment.contains(where: \.isNumber)
    }
}
