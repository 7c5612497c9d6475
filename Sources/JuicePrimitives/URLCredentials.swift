/// URLs in messages and `config show` never carry a password or a query value.
package enum URLCredentials {
    /// `text` with a URL's `user:password@` replaced by `***@` and every query value by
    /// `***` (`http://***@host/path?token=***&debug=***#part`); any other text unchanged.
    /// A query item without `=` (`?s3cr3t`) is replaced whole.
    package static func redacted(_ text: String) -> String {
        guard let scheme = text.firstRange(ofText: "://") else { return text }
        let authorityEnd = text[scheme.upperBound...].firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? text.endIndex
        var result = String(text[..<scheme.upperBound])
        if let at = text[scheme.upperBound..<authorityEnd].lastIndex(of: "@") {
            result += "***" + text[at..<authorityEnd]
        } else {
            result += text[scheme.upperBound..<authorityEnd]
        }
        let rest = text[authorityEnd...]
        guard let question = rest.firstIndex(of: "?") else { return result + rest }
        let fragment = rest[question...].firstIndex(of: "#") ?? rest.endIndex
        let query = rest[rest.index(after: question)..<fragment]
        let items = query.split(separator: "&", omittingEmptySubsequences: false).map { item -> String in
            if item.isEmpty { return "" }
            guard let equals = item.firstIndex(of: "=") else { return "***" }
            return item[...equals] + "***"
        }
        return result + rest[...question] + items.joined(separator: "&") + rest[fragment...]
    }
}
