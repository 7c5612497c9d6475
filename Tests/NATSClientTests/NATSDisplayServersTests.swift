import FoundationEssentials
import JuiceMakerPluginKit
import JuiceTestSupport
import NATSClient
import Testing
import JuicePrimitives

/// `NATSOptions.displayServers` (servers in errors, never their user or password)
/// against what it printed when FoundationEssentials' `URLComponents` took the
/// credentials out.
///
/// Deliberate differences, tested below: a port is shown as written (`:04222`;
/// `URLComponents` printed `:4222`); an empty port after an IP literal (`[::1]:`) is
/// dropped as after a name (`URLComponents` kept the `:` there only); and a server that
/// is no absolute URL is shown redacted (`URLCredentials.redacted`: `URLComponents`
/// encoded it as a relative one, or showed it whole, password included, when it could
/// not parse it, as `nats://u:p@h:x`).
@Suite(.tags(.unit))
struct NATSDisplayServersTests {
    /// Credentials with `@ : / % ? #` (encoded, or raw where a URL can hold them) and
    /// characters beyond ASCII; servers that are not URLs are shown as they are.
    static let servers: [String] = [
        "nats://127.0.0.1:4222", "nats://u:p@h:4222", "tls://user:secret@nats.example.com:4443", "nats://u@h:4222",
        "nats://:p@h:4222", "nats://@h:4222", "nats://:@h:4222", "nats://us%40er:p%3A%2F%25%3F%23w@h:4222",
        "nats://a@b:c@d@h:4222", "nats://u:p:w:@h:4222", "nats://u:p%zz@h:4222", "nats://ü:pässwörd@h:4222",
        "nats://名前:秘密@h:4222", "nats://u:p w@h:4222", "nats://u:p@[::1]:4222", "nats://u:p@h", "nats://u:p@h:4222/",
        "nats://u:p/w@h:4222", "nats://u:p?w@h:4222", "nats://u:p#w@h:4222", "nats://u:p@h:x", "h:4222",
    ]

    /// What the servers were shown as before.
    private static func formerDisplay(_ server: String) -> String {
        guard var parts = URLComponents(string: server) else { return server }
        parts.user = nil
        parts.password = nil
        return parts.string ?? server
    }

    @Test(arguments: servers)
    func credentialsAreLeftOutAsBefore(_ server: String) {
        let shown = NATSOptions(servers: [server]).displayServers
        if ParsedURL(server) == nil {
            #expect(shown == URLCredentials.redacted(server))
        } else {
            #expect(shown == Self.formerDisplay(server))
        }
    }

    @Test func severalServersAreJoined() {
        let options = NATSOptions(servers: ["nats://u:p@a:1", "tls://b:2", "nats://t%40k:x@c:3"])
        #expect(options.displayServers == "nats://a:1,tls://b:2,nats://c:3")
    }

    @Test func portsAndNonURLsAreShownAsWritten() {
        #expect(NATSOptions(servers: ["nats://u:p@h:04222"]).displayServers == "nats://h:04222")
        #expect(Self.formerDisplay("nats://u:p@h:04222") == "nats://h:4222")
        #expect(NATSOptions(servers: ["nats://u:p@[::1]:"]).displayServers == "nats://[::1]")
        #expect(Self.formerDisplay("nats://u:p@[::1]:") == "nats://[::1]:")
        #expect(NATSOptions(servers: ["not a url"]).displayServers == "not a url")
        #expect(Self.formerDisplay("not a url") == "not%20a%20url")
    }

    /// A server `ParsedURL` refuses still shows no password: before, such a server was
    /// shown whole.
    @Test func aServerThatIsNotAURLShowsNoPassword() {
        #expect(NATSOptions(servers: ["nats://u:secret@h:x"]).displayServers == "nats://***@h:x")
        #expect(Self.formerDisplay("nats://u:secret@h:x") == "nats://u:secret@h:x")
        #expect(NATSOptions(servers: ["nats://h:4222", "tls://u:secret@h:+1"]).displayServers == "nats://h:4222,tls://***@h:+1")
    }
}
