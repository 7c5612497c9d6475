import FoundationEssentials
import JuiceMakerPluginKit
import JuicePrimitives
import JuiceTestSupport
import Testing

/// `ParsedURL` against FoundationEssentials' `URLComponents(string:)` and `URL(string:)`,
/// which the webhook, the fleet and the config checks used before: the same URLs are
/// refused, and every accepted one comes apart into the same percent-encoded components.
///
/// Deliberate differences, each tested below:
/// - A relative reference (no scheme: `//h/x`, `/x`, `x`, `:foo`, ``) is refused; every
///   caller needs a scheme, and Foundation accepts it only as a relative URL.
/// - The port is its digits as written. Foundation's `port` is `Int(digits)`, `nil` when
///   they overflow (`http://h:99999999999999999999/` then went to port 80); callers now
///   see the digits and refuse them. When another component had to be encoded,
///   Foundation also rewrites the port in `string` as a number (`:0080` → `:80`).
/// - `decodedHost` is `""` where `URL.host` is `nil` for an empty host (`http://`);
///   every caller requires a non-empty host either way.
///
/// A host that a name may not hold as written (`exa mple.com`, `hé`, `a]b`) is
/// percent-encoded, as FoundationEssentials does without FoundationInternationalization,
/// which is how `juice` links it. This test process loads FoundationInternationalization
/// too, and there `URL` IDNA-encodes such a host or refuses it: `encodedHosts` holds what
/// FoundationEssentials alone made of them, and Foundation is asked only when it agrees.
@Suite(.tags(.unit))
struct ParsedURLTests {
    /// Valid URLs, URLs with characters that must be encoded, and URLs that cannot be read.
    static let corpus: [String] = [
        // Plain, with every component.
        "http://example.com", "https://example.com/hook", "http://Example.com:8080/a/b?c=d&e#f", "nats://h:4222",
        "tls://u:p@h:4222", "a+b.c-d://h", "http://h/~user/!$&'()*+,;=:@", "http://h_x.example-1.com/", "http://ex%41mple.com/",
        // Scheme case.
        "HTTP://EXAMPLE.COM/", "HtTpS://h/x",
        // IP literals.
        "http://[::1]:8080/x", "http://[::1]/", "http://[::1]:8080", "http://[fe80::1%25eth0]/", "http://[fe80::1%eth0]/",
        "http://[::1%25z z]/", "http://[v1.fe::a]/", "http://[]/", "http://[::1]:/", "http://[::1", "http://[::1]x/",
        "http://[::1]8080", "http://[a b]/", "http://[a b%x]/", "http://[::1]]/",
        // User information.
        "http://u%41:p%zz@h/", "http://us%40er:p%3Aw@127.0.0.1:9/hook?x=1#part", "http://a@b@h/", "http://a b@h/", "http://:@h/",
        "http://@h/", "http://u:p:q@h/", "http://ü:ö@h:1", "http://user@host", "http://u:@h/", "http://u:p/q@h:1", "http://u:p?q@h:1",
        "http://u:p#q@h:1",
        // Ports.
        "http://h:/", "http://h:+80/", "http://h:-1/", "http://h:8a/", "http://h:1:2/", "http://h:0080/", "http://h:99999/",
        "http://h:80", "http://h: 80/",
        // Queries and fragments.
        "http://h/#frag", "http://h/#", "http://h/?", "http://h?q", "http://h#f?x", "http://h/?a?b#c#d", "http://h/x?a b#c d",
        // Characters a component may not hold as written.
        "http://example.com/a b", "http://h/a<b>", "http://h/\"{}|\\^`", "http://h/é", "http://h/%",
        "http://h/%4", "http://h/%4g", "http://h/a%41 b", "http://h/%FF", "http://%FF/", "http://h%20x/", "http://h/\u{7F}",
        "http://h/\t", "http://h/a\u{0}b", " http://h/", "http://h/ ",
        // No authority, or an empty one.
        "http:/x", "http://", "http:", "http:?q", "http:a b:c/d", "http:a:b", "http:///", "http://u@/", "http://:80/",
        // Not a scheme.
        "1http://h", "ht tp://h", "h:80", "é://h", "-x://h",
    ]

    /// URLs whose host must be encoded, with the host and `string` FoundationEssentials
    /// alone gave them.
    static let encodedHosts: [(text: String, host: String, string: String)] = [
        ("http://exa mple.com/", "exa%20mple.com", "http://exa%20mple.com/"), ("http://hé/", "h%C3%A9", "http://h%C3%A9/"),
        ("http://[v/", "%5Bv", "http://%5Bv/"), ("http://a]b/", "a%5Db", "http://a%5Db/"), ("http://h\n/", "h%0A", "http://h%0A/"),
        ("https://ex ample.com:8080/p q?r s", "ex%20ample.com", "https://ex%20ample.com:8080/p%20q?r%20s"),
        ("http://u:p@名前.example/", "%E5%90%8D%E5%89%8D.example", "http://u:p@%E5%90%8D%E5%89%8D.example/"),
    ]

    /// Whether this process's Foundation encodes hosts as FoundationEssentials alone does.
    static let foundationPercentEncodesHosts = URLComponents(string: "http://exa mple.com/")?.percentEncodedHost == "exa%20mple.com"

    /// Relative references: Foundation reads them as relative URLs, `ParsedURL` refuses them.
    static let relative = ["//h/x", "/x", "", "x", ":foo", "@h:80", "[::1]:80"]

    @Test(arguments: corpus)
    func agreesWithFoundation(_ text: String) {
        let ours = ParsedURL(text)
        let theirs = URLComponents(string: text)
        #expect((ours == nil) == (theirs == nil), "accepted by one only")
        #expect((ours == nil) == (URL(string: text) == nil), "accepted by one only (URL)")
        guard let ours, let theirs else { return }
        #expect(ours.scheme == theirs.scheme)
        #expect(ours.user == theirs.percentEncodedUser)
        #expect(ours.password == theirs.percentEncodedPassword)
        #expect(ours.host == theirs.percentEncodedHost)
        #expect(ours.port.flatMap { Int($0) } == theirs.port)
        #expect(ours.path == theirs.percentEncodedPath)
        #expect(ours.query == theirs.percentEncodedQuery)
        #expect(ours.fragment == theirs.percentEncodedFragment)
        #expect(ours.string == theirs.string)
        #expect(ours.decodedHost ?? "" == URL(string: text)?.host ?? "")
    }

    @Test func hostsAreEncodedAsInJuice() throws {
        for (text, host, string) in Self.encodedHosts {
            let url = try #require(ParsedURL(text), "\(text)")
            #expect(url.host == host && url.string == string, "\(text)")
            if Self.foundationPercentEncodesHosts { agreesWithFoundation(text) }
        }
    }

    @Test(arguments: relative)
    func relativeReferencesAreRefused(_ text: String) {
        #expect(ParsedURL(text) == nil)
        #expect(URLComponents(string: text) != nil)
    }

    @Test func portsAreKeptAsWritten() throws {
        let huge = try #require(ParsedURL("http://h:99999999999999999999/"))
        #expect(huge.port == "99999999999999999999")
        #expect(URLComponents(string: "http://h:99999999999999999999/")?.port == nil)
        let padded = try #require(ParsedURL("http://h:0080/a b"))
        #expect(padded.port == "0080" && padded.string == "http://h:0080/a%20b")
        #expect(URLComponents(string: "http://h:0080/a b")?.string == "http://h:80/a%20b")
        #expect(try #require(ParsedURL("http://h:/")).port == nil)
    }

    @Test func emptyHostsDecodeToEmpty() throws {
        #expect(try #require(ParsedURL("http://")).decodedHost == "")
        #expect(URL(string: "http://")?.host == nil)
        #expect(try #require(ParsedURL("http:/x")).decodedHost == nil)
    }

    @Test func componentsComeApartAsWritten() throws {
        let url = try #require(ParsedURL("HTTPS://us%40er:p%3Aw@[fe80::1%25eth0]:8443/a%20b?q=1&r#top"))
        #expect(url.scheme == "HTTPS" && url.user == "us%40er" && url.password == "p%3Aw")
        #expect(url.host == "[fe80::1%25eth0]" && url.decodedHost == "fe80::1%eth0" && url.port == "8443")
        #expect(url.path == "/a%20b" && url.query == "q=1&r" && url.fragment == "top")
        #expect(url.withoutUserInfo == "HTTPS://[fe80::1%25eth0]:8443/a%20b?q=1&r#top")
        #expect(ParsedURL.percentDecoded("us%40er%C3%A9") == "us@eré")
        #expect(ParsedURL.percentDecoded("%4") == nil && ParsedURL.percentDecoded("%FF") == nil)
    }
}

/// The `.httpURL` rule of a config string accepts what it accepted when it read the
/// value with FoundationEssentials' `URL`.
@Suite(.tags(.unit))
struct HTTPURLRuleTests {
    @Test(arguments: ParsedURLTests.corpus + ParsedURLTests.relative + ["ftp://h/", "https://h:99999/", "https://[]/", "http://u@/"])
    func acceptsWhatItAccepted(_ text: String) {
        Self.compare(text)
    }

    /// A host with a space or beyond ASCII passes (the webhook then refuses it), as it did
    /// in `juice` (see `ParsedURLTests`).
    @Test func encodedHostsAreAcceptedAsInJuice() {
        for (text, _, _) in ParsedURLTests.encodedHosts {
            #expect((try? ConfigurationType.string([.httpURL]).check(.string(text), at: "url")) != nil, "\(text)")
            if ParsedURLTests.foundationPercentEncodesHosts { Self.compare(text) }
        }
    }

    private static func compare(_ text: String) {
        let former = URL(string: text).map { url in
            ["http", "https"].contains(url.scheme?.lowercased() ?? "") && !(url.host ?? "").isEmpty
        }
        let accepted = (try? ConfigurationType.string([.httpURL]).check(.string(text), at: "url")) != nil
        #expect(accepted == (former ?? false))
    }
}
