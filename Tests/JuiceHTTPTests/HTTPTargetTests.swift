import FoundationEssentials
import JuiceMakerPluginKit
import JuicePrimitives
import JuiceTestSupport
import Testing
@testable import JuiceHTTP

#if canImport(Glibc)
import Glibc
#endif

/// `HTTPTarget` from a `ParsedURL` against what it made of the same URL when it took it
/// apart with FoundationEssentials' `URLComponents`: the same host, port, `Host` header,
/// request target and `Authorization`, or the same error.
///
/// One deliberate difference, tested below: a port too long for a number, which
/// `URLComponents` read as no port (so the request went to port 80), is refused.
@Suite(.tags(.unit)) struct HTTPTargetTests {
    static let urls: [String] = [
        "http://example.com", "http://Example.COM/", "https://example.com:8443?q=1", "https://user@example.com:443/x",
        "http://[::1]:8080/h", "http://[::1]", "http://[::FFFF:127.0.0.1]/", "http://[fe80::1%25eth0]/", "http://[v1.fe::a]/",
        "http://[]/", "http://10.0.0.1/", "http://256.0.0.1/", "http://h_x.example-1.com/", "http://-h/", "http://.h/", "http://h%41/",
        "http://%FF/", "ftp://example.com/", "HTTPS://h/", "http://h:0/", "http://h:1/", "http://h:65535/", "http://h:65536/",
        "http://h:080/", "http://h:/", "http://h/a b", "http://h/é?ü#ö", "http://h/%zz", "http://h/a%41 b", "http://h?x", "http://h#f",
        "http://h/p?q=1&r=a%20b#frag", "http://us%40er:p%3Aw@127.0.0.1:9/hook?x=1#part", "http://u:@h/", "http://:p@h/", "http://:@h/",
        "http://@h/", "http://a@b@h/", "http://ü:ö@h/", "http://u%zz:p%FF@h/", "http://u:p:q@h/", "http:/x", "http://", "http:h",
    ]

    /// What `HTTPTarget` was, as text, or its error; `nil` when `URL(string:)` refused the URL.
    private static func former(_ text: String) -> String? {
        guard let url = URL(string: text), let components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return nil }
        let scheme: HTTPTarget.Scheme
        switch components.scheme?.lowercased() {
        case "http": scheme = .http
        case "https": scheme = .https
        default: return "\(HTTPTargetError.scheme)"
        }
        guard var host = components.percentEncodedHost, !host.isEmpty else { return "\(HTTPTargetError.host)" }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        let isIPv6 = host.contains(":")
        let nameBytes = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_".utf8)
        if isIPv6 {
            guard host.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }), HTTPTarget.isAddress(host, family: AF_INET6) else {
                return "\(HTTPTargetError.host)"
            }
        } else {
            guard host.utf8.allSatisfy({ nameBytes.contains($0) }), !host.hasPrefix("."), !host.hasPrefix("-") else {
                return "\(HTTPTargetError.host)"
            }
        }
        let isAddress = isIPv6 || HTTPTarget.isAddress(host, family: AF_INET)
        host = host.lowercased()
        let defaultPort: UInt16 = scheme == .http ? 80 : 443
        var port = defaultPort
        if let number = components.port {
            guard let value = UInt16(exactly: number), value > 0 else { return "\(HTTPTargetError.port)" }
            port = value
        }
        let bracketed = isIPv6 ? "[\(host)]" : host
        let hostHeader = port == defaultPort ? bracketed : "\(bracketed):\(port)"
        var target = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        if let query = components.percentEncodedQuery { target += "?" + query }
        guard target.hasPrefix("/"), target.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else { return "\(HTTPTargetError.path)" }
        let user = components.percentEncodedUser ?? ""
        let password = components.percentEncodedPassword ?? ""
        var authorization: String?
        if !user.isEmpty || !password.isEmpty {
            let decoded = (ParsedURL.percentDecoded(user) ?? user) + ":" + (ParsedURL.percentDecoded(password) ?? password)
            authorization = "Basic " + Data(decoded.utf8).base64EncodedString()
        }
        return describe(scheme, host, port, hostHeader, target, authorization, isAddress)
    }

    private static func describe(
        _ scheme: HTTPTarget.Scheme, _ host: String, _ port: UInt16, _ hostHeader: String, _ target: String, _ authorization: String?,
        _ isAddress: Bool
    ) -> String {
        "\(scheme) \(host) \(port) \(hostHeader) \(target) \(authorization ?? "-") \(isAddress)"
    }

    private static func current(_ text: String) -> String? {
        guard let url = ParsedURL(text) else { return nil }
        do {
            let target = try HTTPTarget(url: url)
            return describe(
                target.scheme, target.host, target.port, target.hostHeader, target.requestTarget, target.authorization, target.hostIsAddress)
        } catch {
            return "\(error)"
        }
    }

    @Test(arguments: urls)
    func takesURLsApartAsBefore(_ text: String) {
        #expect(Self.current(text) == Self.former(text))
    }

    @Test func aPortTooLongForANumberIsRefused() {
        let text = "http://h:99999999999999999999/"
        #expect(Self.former(text) == Self.describe(.http, "h", 80, "h", "/", nil, false))
        #expect(Self.current(text) == "\(HTTPTargetError.port)")
    }
}
