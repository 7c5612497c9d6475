import Foundation
import JuiceMakerPluginKit
import JuiceTestSupport
import Testing

@testable import JuiceCLI

/// What `juice config show --json` prints as `config` is a config `juice config check`
/// accepts: keys with no value are left out, and a masked value is a string where a
/// string is taken (`juice help config`).
@Suite(.tags(.process), .notInUnitRun) struct ConfigRoundTripTests {
    private static let webhookSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"

    /// A config that sets every key juice declares, at the top level, in `store` and
    /// `fleet`, and of every plugin type; `files` is where the files it names are.
    private static func everyKey(files: String) -> String {
        #"""
        {"$schema": "https://example.com/juice-maker.schema.json", "language": "en", "initialStock": 7,
         "store": {"path": "\#(files)/s.db", "durability": "normal", "retention": "400d"},
         "flushDeadlineSeconds": 3, "backgroundDelivery": false, "machine": "shop-1",
         "fleet": {"url": "nats://user:pw-4711@127.0.0.1:4222", "subjectPrefix": "jm", "stream": "JM", "credentials": "\#(files)/u.creds",
           "token": "tok-4711", "timeoutSeconds": 4, "ackWait": 20, "maxAckPending": 10, "deliverPolicy": "new", "maxMessageBytes": 2048,
           "tlsCA": "\#(files)/ca.pem", "tlsCertificate": "\#(files)/cert.pem", "tlsKey": "\#(files)/key.pem"},
         "subscribers": [
          {"type": "logger", "name": "log", "enabled": true, "level": "debug", "format": "json", "path": "\#(files)/log.txt",
           "events": ["juiceMade"]},
          {"type": "cli-notifier", "name": "cli", "enabled": true, "events": ["stockChanged"], "stockChanges": false},
          {"type": "webhook", "name": "hook", "enabled": true, "url": "https://user:pw@example.com/hook?token=abc",
           "secret": "\#(webhookSecret)", "events": ["orderFailed"], "timeoutSeconds": 3, "retrySchedule": [1, 2], "maxInFlight": 2,
           "ordered": true},
          {"type": "command", "name": "cmd", "enabled": true, "command": ["/bin/cat", "--password=hunter2"],
           "environment": {"TOKEN": "x", "LANG": "C"}, "workingDirectory": "\#(files)", "events": ["juiceMade"], "retrySchedule": [1],
           "timeoutSeconds": 2},
          {"type": "nats", "name": "bus", "enabled": true, "url": "nats://127.0.0.1:4222", "subjectPrefix": "jm", "stream": "JM2",
           "replicas": 1, "maxAge": 3600, "maxBytes": 100000, "discard": "new", "credentials": "\#(files)/u.creds", "token": "t",
           "tlsCA": "\#(files)/ca.pem", "tlsCertificate": "\#(files)/cert.pem", "tlsKey": "\#(files)/key.pem", "events": ["juiceMade"],
           "timeoutSeconds": 2, "retrySchedule": [1]},
          {"type": "metrics", "name": "prom", "enabled": true, "path": "\#(files)/m.prom"}
         ]}
        """#
    }

    /// `config show --json`'s `config`, written to `name` in the sandbox.
    private static func copy(_ sandbox: JuiceSandbox, config: String?, to name: String) throws -> (path: String, config: [String: Any]) {
        let shown = try sandbox.run(["config", "show", "--json"] + (config.map { ["--config", $0] } ?? []))
        #expect(shown.status == 0, "\(shown.stderr)")
        let object = try #require(try shown.json() as? [String: Any])
        let document = try #require(object["config"] as? [String: Any])
        let data = try JSONSerialization.data(withJSONObject: document, options: [.sortedKeys])
        return (try sandbox.write(String(decoding: data, as: UTF8.self), to: name), document)
    }

    @Test func theDefaultConfigShownIsAConfig() throws {
        let sandbox = try JuiceSandbox()
        let (path, document) = try Self.copy(sandbox, config: nil, to: "copy.json")
        let store = try #require(document["store"] as? [String: Any])
        #expect(store["retention"] == nil, "no retention by default: left out, not null")
        let check = try sandbox.run(["--config", path, "config", "check"])
        #expect(check.status == 0, "\(check.stderr)")
    }

    @Test func aConfigSettingEveryKeyShownIsAConfig() throws {
        let sandbox = try JuiceSandbox()
        let files = sandbox.file("files")
        try sandbox.write("-----BEGIN NATS USER JWT-----\n", to: "files/u.creds")
        for name in ["ca.pem", "cert.pem"] {
            try sandbox.write("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n", to: "files/\(name)")
        }
        try sandbox.write("-----BEGIN PRIVATE KEY-----\nMIIB\n-----END PRIVATE KEY-----\n", to: "files/key.pem")
        let text = Self.everyKey(files: files)
        try Self.expectEveryDeclaredKey(in: text)
        let original = try sandbox.write(text, to: "every-key.json")
        let check = try sandbox.run(["--config", original, "config", "check"])
        #expect(check.status == 0, "\(check.stderr)")

        let (path, document) = try Self.copy(sandbox, config: original, to: "copy.json")
        let fleet = try #require(document["fleet"] as? [String: Any])
        #expect(fleet["token"] as? String == "***")
        #expect(fleet["credentials"] as? String == "\(files)/u.creds", "a path, shown as tlsKey's is")
        // Masked whole, the webhook's secret is no base64: refused, naming the key and why.
        let refused = try sandbox.run(["--config", path, "config", "check"])
        #expect(refused.status == 78)
        #expect(refused.stderr.contains("subscribers[2].secret: "), "\(refused.stderr)")
        #expect(refused.stderr.contains("*** is how juice config show prints a secret"), "\(refused.stderr)")
        // Written back, the copy is accepted: every other *** is a string where one is taken.
        let copied = try String(contentsOfFile: path, encoding: .utf8)
        #expect(copied.contains("***"))
        let restored = try sandbox.write(
            copied.replacingOccurrences(of: #""secret":"***""#, with: #""secret":"\#(Self.webhookSecret)""#), to: "restored.json")
        let accepted = try sandbox.run(["--config", restored, "config", "check"])
        #expect(accepted.status == 0, "\(accepted.stderr)")
    }

    /// Fails when a key is declared that `everyKey` does not set.
    private static func expectEveryDeclaredKey(in text: String) throws {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        for key in ConfigKeys.topLevel(.standard) {
            #expect(object[key.name] != nil, "\(key.name)")
            guard case .object(let inner) = key.type, key.name != "subscribers", let section = object[key.name] as? [String: Any] else { continue }
            for innerKey in inner { #expect(section[innerKey.name] != nil, "\(key.name).\(innerKey.name)") }
        }
        let subscribers = try #require(object["subscribers"] as? [[String: Any]])
        for plugin in PluginRegistry.standard.declarations {
            let entry = try #require(subscribers.first { $0["type"] as? String == plugin.type }, "\(plugin.type)")
            for key in ConfigKeys.commonSubscriber(.standard) + plugin.configuration {
                #expect(entry[key.name] != nil, "\(plugin.type).\(key.name)")
            }
        }
    }
}
