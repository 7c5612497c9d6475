#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import JuicePrimitives

/// Where a client's requests go, taken apart once from its URL: what to connect to,
/// what to verify, and what the request line and `Host` header say.
///
/// - `http://` (port 80) and `https://` (port 443); a host name, an IPv4 address or a
///   bracketed IPv6 address (`[::1]`); an IPv6 zone (`%25eth0`) is refused.
/// - The request target is the URL's path (`/` when empty) and query, as written
///   (percent-encoded); the fragment is never sent.
/// - A `user:password@` is never part of the request line. As libcurl did under
///   URLSession, it becomes `Authorization: Basic base64(user:password)` (each part
///   percent-decoded; a user alone gives `user:`).
package struct HTTPTarget: Sendable, Equatable {
    package enum Scheme: Sendable, Equatable { case http, https }

    package let scheme: Scheme
    /// The name or address connected to, checked against the certificate and sent as
    /// SNI (a name only): without brackets.
    package let host: String
    package let port: UInt16
    /// The `Host` header: the host (bracketed if IPv6), with `:port` unless the default.
    package let hostHeader: String
    /// Path and query, never empty, visible ASCII only.
    package let requestTarget: String
    /// `Basic …` from the URL's user information, if it has any.
    package let authorization: String?
    /// Whether `host` is an IPv4 or IPv6 address rather than a name.
    package let hostIsAddress: Bool

    /// Takes `url` apart; throws why it cannot be requested.
    package init(url: ParsedURL) throws(HTTPTargetError) {
        switch url.scheme.lowercased() {
        case "http": scheme = .http
        case "https": scheme = .https
        default: throw .scheme
        }
        guard var host = url.host, !host.isEmpty else { throw .host }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        let isIPv6 = host.contains(":")
        if isIPv6 {
            guard host.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }), Self.isAddress(host, family: AF_INET6) else {
                throw .host
            }
        } else {
            // A DNS name or a dotted IPv4 address; no percent-encoding, no other bytes.
            guard host.utf8.allSatisfy({ Self.isNameByte($0) }), !host.hasPrefix("."), !host.hasPrefix("-") else { throw .host }
        }
        self.host = host.lowercased()
        hostIsAddress = isIPv6 || Self.isAddress(host, family: AF_INET)
        let defaultPort: UInt16 = scheme == .http ? 80 : 443
        if let port = url.port {
            guard let value = UInt16(port), value > 0 else { throw .port }
            self.port = value
        } else {
            port = defaultPort
        }
        let bracketed = isIPv6 ? "[\(self.host)]" : self.host
        hostHeader = port == defaultPort ? bracketed : "\(bracketed):\(port)"
        var target = url.path.isEmpty ? "/" : url.path
        if let query = url.query { target += "?" + query }
        guard target.hasPrefix("/"), target.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else { throw .path }
        requestTarget = target
        let user = url.user ?? ""
        let password = url.password ?? ""
        if user.isEmpty && password.isEmpty {
            authorization = nil
        } else {
            let decoded = (ParsedURL.percentDecoded(user) ?? user) + ":" + (ParsedURL.percentDecoded(password) ?? password)
            authorization = "Basic " + Base64.encoded(Array(decoded.utf8))
        }
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        case UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: "_"):
            return true
        default:
            return false
        }
    }

    /// Whether `text` is a numeric address of `family` (`inet_pton`).
    static func isAddress(_ text: String, family: Int32) -> Bool {
        var storage = in6_addr()
        return inet_pton(family, text, &storage) == 1
    }
}

/// What makes a URL unusable for the HTTP client.
package enum HTTPTargetError: Error, Sendable, Equatable {
    case scheme, host, port, path

    /// The reason, for a configuration error on `url`.
    package var english: String {
        switch self {
        case .scheme: "only http:// and https:// URLs can be used"
        case .host: "the host must be a name (letters, digits, '.', '-'), an IPv4 address or a bracketed IPv6 address"
        case .port: "the port must be from 1 to 65535"
        case .path: "the path and query must be percent-encoded ASCII"
        }
    }

    package var korean: String {
        switch self {
        case .scheme: "http://와 https:// URL만 쓸 수 있습니다"
        case .host: "호스트는 이름(영문자, 숫자, '.', '-'), IPv4 주소 또는 대괄호로 감싼 IPv6 주소여야 합니다"
        case .port: "포트는 1부터 65535까지입니다"
        case .path: "경로와 쿼리는 퍼센트 인코딩된 ASCII여야 합니다"
        }
    }
}
