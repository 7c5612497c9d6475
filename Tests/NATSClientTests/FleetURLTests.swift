import FleetConfiguration
import FoundationEssentials
import JuiceTestSupport
import Testing

/// `Fleet.servers` accepts and refuses the `url` items it did when it read them with
/// FoundationEssentials' `URL`, except (tested below) a port too long for a number,
/// which `URL` read as no port, and a path that `URL` decoded to `/` or failed to decode
/// (`/%2F`, `//`, `/%FF`): a NATS URL has no path, so these are now refused.
@Suite(.tags(.unit))
struct FleetURLTests {
    static let items: [String] = [
        "nats://127.0.0.1:4222", "tls://h:4443", "NATS://H:4222", "h:4222", "h", "nats://h", "nats://h/", "nats://h:4222/",
        "nats://h:4222/x", "nats://h:4222?q", "nats://h:4222#f", "nats://u:p@h:4222",
        "nats://[::1]:4222", "nats://[::1]", "nats://[]:4222", "nats://:4222", "nats://", "http://h:4222", "nats://h:0",
        "nats://h:65535", "nats://h:65536", "nats://h:04222", "nats://h:", "nats://h:x", "nats://h:+1",
        "nats://hé:4222", "nats://%FF:4222", "nats://h%41:4222", "nats://[::1", "nats://[::1]x", " nats://h:1 ", "nats://h:1 2",
    ]

    /// What `Fleet.servers` said of one item before.
    private static func formerlyAccepted(_ text: String) -> Bool {
        let item = String(text.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
        let full = item.contains("://") ? item : "nats://\(item)"
        guard let url = URL(string: full), ["nats", "tls"].contains(url.scheme?.lowercased() ?? ""),
            let host = url.host, !host.isEmpty, url.path.isEmpty || url.path == "/", url.query == nil
        else { return false }
        if let port = url.port, !(1...65535).contains(port) { return false }
        return true
    }

    @Test(arguments: items)
    func acceptsWhatItAccepted(_ item: String) {
        let accepted = (try? Fleet.servers(item).get()) != nil
        #expect(accepted == Self.formerlyAccepted(item))
    }

    @Test func aPortTooLongForANumberOrAPathIsRefused() {
        for item in ["nats://h:99999999999999999999", "nats://h:4222/%2F", "nats://h:4222//", "nats://h:4222/%FF"] {
            #expect(Self.formerlyAccepted(item), "\(item)")
            #expect((try? Fleet.servers(item).get()) == nil, "\(item)")
        }
    }

    /// A host a name may not hold as written is percent-encoded, as FoundationEssentials
    /// did in `juice` (which does not load FoundationInternationalization; this test
    /// process does, and its `URL` IDNA-encodes or refuses such a host instead).
    @Test func aHostWithASpaceIsAcceptedAsBefore() {
        #expect((try? Fleet.servers("nats://exa mple:4222").get()) == ["nats://exa mple:4222"])
    }
}
