/// URLs in messages and `config show` never carry a password.
public enum URLCredentials {
    /// `text` with a URL's `user:password@` replaced by `***@`
    /// (`http://***@host/path`); any other text unchanged.
    public static func redacted(_ text: String) -> String {
        guard let scheme = text.range(of: "://") else { return text }
        let authorityEnd = text[scheme.upperBound...].firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? text.endIndex
        guard let at = text[scheme.upperBound..<authorityEnd].lastIndex(of: "@") else { return text }
        return String(text[..<scheme.upperBound]) + "***" + String(text[at...])
    }
}
