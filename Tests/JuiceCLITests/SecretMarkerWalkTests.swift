import FleetConfiguration
import FoundationEssentials
import JuiceJSON
import JuiceMakerPluginKit
import JuiceTestSupport
import Testing

@testable import JuiceCLI

/// Secrets are denied by default: every key of every plugin (and of the `fleet`
/// section) is given a value that hides a marker in each place a secret is written —
/// a URL's password (also one holding `/` or `?`), its query, its fragment, the second
/// URL of a server list, a program's argument, an environment value, a bare
/// `NAME=value` — and no output of `config show`, `config show --json`, `config check`,
/// `subscribers` or `subscribers --json` may hold the marker, whether the value is
/// accepted or refused.
@Suite(.tags(.process, .slow), .notInUnitRun, .offPool)
struct SecretMarkerWalkTests {
    static let marker = "MRK4242"

    /// Where a secret can sit in a URL: shown without it whatever the key.
    static let urlSpellings = [
        "nats://u:\(marker)@127.0.0.1:4222", "https://example.com/x?token=\(marker)", "https://example.com/x#\(marker)",
        "nats://127.0.0.1:4222,nats://u:\(marker)@127.0.0.1:4223", "https://u:pa/\(marker)@example.com/x",
        "https://u:pa?\(marker)@example.com/x", "https://example.com/services/T0AB12CD3/\(marker)x9y8z7w6v5",
    ]
    /// Text that is a secret only by what it is: hidden unless the key is declared harmless.
    static let plainSpellings = ["PGPASSWORD=\(marker)", "aws_secret_access_key=\(marker)", "curl -u admin:\(marker) https://h"]

    /// The other keys each type needs to be built, with harmless values.
    static let base: [String: [(String, String)]] = [
        "webhook": [("url", #""http://127.0.0.1:9/hook""#)], "command": [("command", #"["/bin/cat"]"#)],
        "nats": [("url", #""nats://127.0.0.1:1""#)],
    ]

    /// One case: a section of `type` whose `key` holds `value` (as JSON text), or the
    /// `fleet` section's when `type` is `fleet`.
    struct Case: Sendable, CustomTestStringConvertible {
        let type: String
        let key: String
        let value: String
        var testDescription: String { "\(type).\(key) = \(value)" }
    }

    static func quoted(_ text: String) -> String { JSONWriter.compact(.string(text)) }

    static let cases: [Case] = {
        var cases: [Case] = []
        func add(_ type: String, _ key: ConfigurationKey) {
            guard key.name != "type" else { return }
            let spellings = urlSpellings + (key.secrecy == .harmless ? [] : plainSpellings)
            for spelling in spellings {
                let value: String? =
                    switch key.type {
                    case .string: quoted(spelling)
                    case .list(.string, _, _): "[\"/bin/cat\", \(quoted(spelling))]"
                    case .dictionary: "{\"DB_URL\": \(quoted(spelling)), \"LANG\": \"C\"}"
                    default: nil
                    }
                if let value { cases.append(Case(type: type, key: key.name, value: value)) }
            }
        }
        for declaration in PluginRegistry.standard.declarations {
            for key in declaration.configuration { add(declaration.type, key) }
        }
        for key in Fleet.readerKeys { add("fleet", key) }
        return cases
    }()

    static func config(for testCase: Case) -> String {
        if testCase.type == "fleet" {
            let url = testCase.key == "url" ? "" : #""url": "nats://127.0.0.1:1", "#
            return #"{"subscribers": [], "fleet": {\#(url)"\#(testCase.key)": \#(testCase.value)}}"#
        }
        var members = (base[testCase.type] ?? []).filter { $0.0 != testCase.key }.map { "\"\($0.0)\": \($0.1)" }
        members.append("\"\(testCase.key)\": \(testCase.value)")
        return #"{"subscribers": [{"type": "\#(testCase.type)", \#(members.joined(separator: ", "))}]}"#
    }

    @Test func everyTextKeyIsWalked() {
        #expect(Self.cases.count > 100, "\(Self.cases.count)")
        let keys = Set(Self.cases.map { "\($0.type).\($0.key)" })
        for key in ["webhook.url", "webhook.secret", "command.command", "command.environment", "nats.url", "nats.token", "fleet.url"] {
            #expect(keys.contains(key), "\(key) is not walked")
        }
    }

    @Test(.timeLimit(.minutes(10)), arguments: cases)
    func noOutputHoldsTheSecret(_ testCase: Case) async throws {
        let sandbox = try JuiceSandbox(config: Self.config(for: testCase))
        for command in [["config", "show"], ["config", "show", "--json"], ["config", "check"], ["subscribers"], ["subscribers", "--json"]] {
            let run = try await sandbox.running(command)
            #expect(run.status < 128, "\(command): \(run.status)")
            #expect(!run.stdout.contains(Self.marker) && !run.stderr.contains(Self.marker), "\(command): \(run.stdout)\(run.stderr)")
        }
    }
}
