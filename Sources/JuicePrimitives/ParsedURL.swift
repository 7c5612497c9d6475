/// An absolute URL taken apart as RFC 3986 (sections 3 and 3.2) splits it:
/// `scheme:[//[user[:password]@]host[:port]]path[?query][#fragment]`.
///
/// Every component but the scheme and the port is kept percent-encoded, as written
/// (`http://u%40x@h/a%20b` has the user `u%40x` and the path `/a%20b`). A component
/// holding a character it may not hold as written (a space, `<`, `"`, a byte beyond
/// ASCII, a `%` not followed by two hex digits, an `@` in the user) is not refused:
/// that component is percent-encoded whole, its `%` included, so `http://h/a b` has the
/// path `/a%20b` and `http://h/%zz` the path `/%25zz` (what `juice` has always made of
/// such URLs in a config). Refused:
/// - no scheme (a relative reference), or a scheme that is not a letter followed by
///   letters, digits, `+`, `-` and `.`;
/// - a port that is not all digits (`:+80`, `:8a`, `:1:2`);
/// - anything but `:port` after a bracketed IP literal (`[::1]x`), and an IP literal
///   holding other than unreserved characters, sub-delims and `:`; a zone
///   (`[fe80::1%25eth0]`) is kept, its `%` encoded as `%25` if it was not.
///
/// A host is a name or an IPv4 address (`reg-name`, checked for its characters only) or
/// a bracketed IP literal, brackets kept; it is `""` in `http://` and `nil` when there
/// is no `//` at all (`http:/x`). The port is its digits as written, `nil` when absent
/// or empty (`http://h:/`), and may be out of any range: the caller says which ports it
/// takes.
///
/// The product reads its URLs with this rather than FoundationEssentials' `URL`
/// (start-up rule "Date only", the Performance article).
public struct ParsedURL: Sendable, Hashable {
    /// As written (`HTTP` stays `HTTP`): compare it lowercased.
    public let scheme: String
    public let user: String?
    public let password: String?
    public let host: String?
    /// Digits only.
    public let port: String?
    /// Never `nil`, possibly empty (`http://h`).
    public let path: String
    public let query: String?
    public let fragment: String?
    /// The text as given, if no component had to be encoded.
    private let written: String?

    /// Takes `text` apart; `nil` if it cannot be read as an absolute URL.
    public init?(_ text: String) {
        let bytes = Array(text.utf8)
        // The scheme ends at the first ":" before any "/", "?", "#", "[", "]" or "@".
        guard let colon = bytes.firstIndex(where: { ":/?#[]@".utf8.contains($0) }), bytes[colon] == ASCII.colon,
            Self.isScheme(bytes[..<colon])
        else { return nil }
        var index = colon + 1
        var encoded = false
        func part(_ range: Range<Int>, _ kind: Part) -> String {
            let (text, changed) = kind.escapedIfInvalid(bytes[range])
            encoded = encoded || changed
            return text
        }

        var user: String?
        var password: String?
        var host: String?
        var port: String?
        if bytes[index...].starts(with: [ASCII.slash, ASCII.slash]) {
            let start = index + 2
            let end = bytes[start...].firstIndex { $0 == ASCII.slash || $0 == ASCII.question || $0 == ASCII.hash } ?? bytes.endIndex
            var hostStart = start
            if let at = bytes[start..<end].lastIndex(of: ASCII.at) {
                let userEnd = bytes[start..<at].firstIndex(of: ASCII.colon) ?? at
                user = part(start..<userEnd, .userinfo)
                if userEnd < at { password = part(userEnd + 1..<at, .userinfo) }
                hostStart = at + 1
            }
            var hostEnd = end
            var portStart: Int?
            if hostStart < end, bytes[hostStart] == ASCII.openBracket,
                let close = bytes[hostStart..<end].firstIndex(of: ASCII.closeBracket)
            {
                hostEnd = close + 1
                if hostEnd < end {
                    guard bytes[hostEnd] == ASCII.colon else { return nil }
                    portStart = hostEnd + 1
                }
                guard let literal = Self.ipLiteral(bytes[hostStart..<hostEnd]) else { return nil }
                host = literal.text
                encoded = encoded || literal.changed
            } else {
                if let colon = bytes[hostStart..<end].firstIndex(of: ASCII.colon) {
                    hostEnd = colon
                    portStart = colon + 1
                }
                host = part(hostStart..<hostEnd, .host)
            }
            if let portStart {
                let digits = bytes[portStart..<end]
                guard digits.allSatisfy({ (ASCII.zero...ASCII.nine).contains($0) }) else { return nil }
                port = digits.isEmpty ? nil : String(decoding: digits, as: UTF8.self)
            }
            index = end
        }
        let pathEnd = bytes[index...].firstIndex { $0 == ASCII.question || $0 == ASCII.hash } ?? bytes.endIndex
        let path = part(index..<pathEnd, .path)
        var query: String?
        var fragment: String?
        if pathEnd < bytes.endIndex {
            let hash = bytes[pathEnd...].firstIndex(of: ASCII.hash) ?? bytes.endIndex
            if bytes[pathEnd] == ASCII.question { query = part(pathEnd + 1..<hash, .query) }
            if hash < bytes.endIndex { fragment = part(hash + 1..<bytes.endIndex, .query) }
        }

        scheme = String(decoding: bytes[..<colon], as: UTF8.self)
        (self.user, self.password, self.host, self.port) = (user, password, host, port)
        (self.path, self.query, self.fragment) = (path, query, fragment)
        written = encoded ? nil : text
    }

    /// The URL as given, or rebuilt from its components when one had to be encoded.
    public var string: String { written ?? composed(userInfo: true) }

    /// The URL without its `user:password@`, for showing: `nats://h:4222` for
    /// `nats://u:p@h:4222` (components percent-encoded as in `string`).
    public var withoutUserInfo: String { user == nil ? string : composed(userInfo: false) }

    /// The host percent-decoded, an IP literal without its brackets (`::1`,
    /// `fe80::1%eth0`); `""` for an empty host, `nil` without a host or when the decoded
    /// bytes are not UTF-8.
    public var decodedHost: String? {
        guard var host else { return nil }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return Self.percentDecoded(host)
    }

    /// `text` with each `%XX` replaced by its byte; `nil` if a `%` is not followed by two
    /// hex digits or the bytes are not UTF-8.
    public static func percentDecoded(_ text: some StringProtocol) -> String? {
        var bytes: [UInt8] = []
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == ASCII.percent else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else { return nil }
            bytes.append(high << 4 | low)
        }
        return String(validating: bytes, as: UTF8.self)
    }

    // MARK: Private

    /// What a component may hold as written (RFC 3986, 3.2.1 to 3.5), besides `%XX`.
    private enum Part {
        case userinfo, host, path
        /// A query or a fragment.
        case query
        /// The zone of an IP literal after its `%25` (RFC 6874).
        case zone
        /// The first segment of a path without an authority, whose `:` would read as a
        /// scheme's end: only when encoding, as a written `:` there is no error.
        case firstSegment

        func allows(_ byte: UInt8) -> Bool {
            if ParsedURL.isUnreserved(byte) { return true }
            let subDelims = "!$&'()*+,;=".utf8
            switch self {
            case .zone: return false
            case .host: return subDelims.contains(byte)
            case .userinfo: return subDelims.contains(byte) || byte == ASCII.colon
            case .firstSegment: return subDelims.contains(byte) || byte == ASCII.at
            case .path: return subDelims.contains(byte) || ":@/".utf8.contains(byte)
            case .query: return subDelims.contains(byte) || ":@/?".utf8.contains(byte)
            }
        }

        /// Whether `bytes` hold only allowed characters and `%XX`.
        func isValid(_ bytes: ArraySlice<UInt8>) -> Bool {
            var index = bytes.startIndex
            while index < bytes.endIndex {
                let byte = bytes[index]
                if byte == ASCII.percent {
                    guard index + 2 < bytes.endIndex, ParsedURL.hexValue(bytes[index + 1]) != nil, ParsedURL.hexValue(bytes[index + 2]) != nil
                    else { return false }
                    index += 3
                } else {
                    guard allows(byte) else { return false }
                    index += 1
                }
            }
            return true
        }

        /// `bytes` as text, percent-encoded whole (every byte not allowed, `%` too) if
        /// they are not valid as written; and whether they were.
        func escapedIfInvalid(_ bytes: ArraySlice<UInt8>) -> (text: String, changed: Bool) {
            guard !isValid(bytes) else { return (String(decoding: bytes, as: UTF8.self), false) }
            var result = ""
            var kind = self
            if self == .path, bytes.first != ASCII.slash { kind = .firstSegment }
            for byte in bytes {
                if byte == ASCII.slash, kind == .firstSegment { kind = .path }
                if kind.allows(byte) {
                    result.unicodeScalars.append(Unicode.Scalar(byte))
                } else {
                    result += ParsedURL.escaped(byte)
                }
            }
            return (result, true)
        }
    }

    /// A bracketed IP literal (`[::1]`, `[fe80::1%25eth0]`): the address holds unreserved
    /// characters, sub-delims and `:`; a zone follows `%25` (a bare `%` is encoded).
    private static func ipLiteral(_ bytes: ArraySlice<UInt8>) -> (text: String, changed: Bool)? {
        let inner = bytes.dropFirst().dropLast()
        let percent = inner.firstIndex(of: ASCII.percent) ?? inner.endIndex
        guard inner[..<percent].allSatisfy(Part.userinfo.allows) else { return nil }
        let address = String(decoding: inner[..<percent], as: UTF8.self)
        guard percent < inner.endIndex else { return ("[" + address + "]", false) }
        let zone = inner[percent...]
        if zone.starts(with: "%25".utf8), Part.zone.isValid(zone.dropFirst(3)) {
            return ("[" + address + String(decoding: zone, as: UTF8.self) + "]", false)
        }
        let escapedZone = zone.map { Part.zone.allows($0) ? String(Unicode.Scalar($0)) : escaped($0) }.joined()
        return ("[" + address + escapedZone + "]", true)
    }

    /// `scheme:` + `//` and the authority if there is one + path, query and fragment.
    private func composed(userInfo: Bool) -> String {
        var result = scheme + ":"
        if let host {
            result += "//"
            if userInfo, let user {
                result += user
                if let password { result += ":" + password }
                result += "@"
            }
            result += host
            if let port { result += ":" + port }
        }
        result += path
        if let query { result += "?" + query }
        if let fragment { result += "#" + fragment }
        return result
    }

    /// RFC 3986, 3.1: `ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )`.
    private static func isScheme(_ bytes: ArraySlice<UInt8>) -> Bool {
        guard let first = bytes.first, isLetter(first) else { return false }
        return bytes.allSatisfy { isLetter($0) || isDigit($0) || $0 == ASCII.plus || $0 == ASCII.minus || $0 == ASCII.dot }
    }

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        isLetter(byte) || isDigit(byte) || "-._~".utf8.contains(byte)
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
    }

    private static func isDigit(_ byte: UInt8) -> Bool { (ASCII.zero...ASCII.nine).contains(byte) }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case ASCII.zero...ASCII.nine: byte - ASCII.zero
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    private static let hexDigits = Array("0123456789ABCDEF".unicodeScalars)

    /// `%XX`, upper-case hex.
    private static func escaped(_ byte: UInt8) -> String {
        var result = "%"
        result.unicodeScalars.append(hexDigits[Int(byte >> 4)])
        result.unicodeScalars.append(hexDigits[Int(byte & 0x0F)])
        return result
    }

    private enum ASCII {
        static let colon = UInt8(ascii: ":")
        static let slash = UInt8(ascii: "/")
        static let question = UInt8(ascii: "?")
        static let hash = UInt8(ascii: "#")
        static let at = UInt8(ascii: "@")
        static let percent = UInt8(ascii: "%")
        static let openBracket = UInt8(ascii: "[")
        static let closeBracket = UInt8(ascii: "]")
        static let plus = UInt8(ascii: "+")
        static let minus = UInt8(ascii: "-")
        static let dot = UInt8(ascii: ".")
        static let zero = UInt8(ascii: "0")
        static let nine = UInt8(ascii: "9")
    }
}
