import Foundation
import JuiceMakerPluginKit
import JuiceTestSupport
import Testing

@testable import JuiceCLI

/// `juice config show` prints every key the config declares (`ConfigKeys`), with the
/// value in effect and where it came from, secrets as `***`; and the config's check
/// compares key names exactly, so a key differing only in case is refused.
@Suite(.tags(.process), .notInUnitRun, .offPool) struct ConfigShowTests {
    private let secret = "tok-4711"

    /// The declared top-level keys, and for one holding an object each of its keys
    /// (`store.path`): the paths `from` names.
    private static var declaredPaths: [(key: String, paths: [String])] {
        ConfigKeys.topLevel(.standard).filter { $0.name != "$schema" }.map { key in
            guard case .object(let inner) = key.type else { return (key.name, [key.name]) }
            return (key.name, inner.map { "\(key.name).\($0.name)" })
        }
    }

    @Test func everyDeclaredKeyIsShownWithWhereItCameFrom() throws {
        let sandbox = try JuiceSandbox()
        let path = try sandbox.write(
            #"""
            {"machine": "shop-1", "backgroundDelivery": false, "initialStock": 7,
             "fleet": {"url": "nats://user:pw-4711@127.0.0.1:4222", "token": "${JUICE_TEST_TOKEN}", "stream": "SHOP"},
             "subscribers": [{"type": "cli-notifier"}]}
            """#, to: "juice.json")
        let environment = ["JUICE_TEST_TOKEN": secret]
        let json = try sandbox.run(["config", "show", "--json", "--config", path], environment: environment)
        #expect(json.status == 0, "\(json.stderr)")
        let object = try #require(try json.json() as? [String: Any])
        let config = try #require(object["config"] as? [String: Any])
        let from = try #require(object["from"] as? [String: String])
        let declared = Self.declaredPaths
        #expect(Set(config.keys) == Set(declared.map(\.key)), "\(config.keys)")
        #expect(Set(from.keys) == Set(declared.flatMap(\.paths)), "\(from.keys)")
        // A key with no value and no default is left out of the config (null is no value).
        let unset: Set = ["store.retention", "fleet.credentials", "fleet.tlsCA", "fleet.tlsCertificate", "fleet.tlsKey"]
        for (key, paths) in declared where paths != [key] {
            let inner = try #require(config[key] as? [String: Any], "\(key)")
            let expected = paths.filter { !unset.contains($0) }.map { String($0.dropFirst(key.count + 1)) }
            #expect(Set(inner.keys) == Set(expected), "\(key): \(inner.keys)")
        }
        #expect(config["machine"] as? String == "shop-1")
        #expect(config["backgroundDelivery"] as? Bool == false)
        let fleet = try #require(config["fleet"] as? [String: Any])
        #expect(fleet["token"] as? String == "***")
        #expect(fleet["url"] as? String == "nats://***@127.0.0.1:4222")
        #expect(fleet["stream"] as? String == "SHOP")
        #expect(fleet["subjectPrefix"] as? String == "juicemaker", "a default is filled in")
        #expect(
            from == [
                "language": "default", "initialStock": "file", "store.path": "JUICE_MAKER_STORE", "store.durability": "default",
                "store.retention": "default",
                "flushDeadlineSeconds": "default", "backgroundDelivery": "file", "machine": "file", "fleet.url": "file",
                "fleet.subjectPrefix": "default", "fleet.stream": "file", "fleet.credentials": "default",
                "fleet.token": "environment", "fleet.timeoutSeconds": "default", "fleet.ackWait": "default",
                "fleet.maxAckPending": "default", "fleet.deliverPolicy": "default", "fleet.maxMessageBytes": "default",
                "fleet.tlsCA": "default", "fleet.tlsCertificate": "default", "fleet.tlsKey": "default", "subscribers": "file",
            ])

        // The text: the same document, then one line per path saying where it came from.
        let text = try sandbox.run(["config", "show", "--config", path], environment: environment)
        #expect(text.status == 0)
        for path in declared.flatMap(\.paths) {
            #expect(text.stdout.contains("\n  \(path) "), "\(path): \(text.stdout)")
        }
        #expect(text.stdout.contains("\"machine\": \"shop-1\""))
        #expect(text.stdout.contains("  fleet.token            the environment (${NAME} in the config file)"), "\(text.stdout)")
        for shown in [json.stdout, text.stdout] {
            #expect(!shown.contains(secret) && !shown.contains("pw-4711"))
        }
    }

    /// `store.path` names who chose the store; the built-in config is all defaults.
    @Test func theStoreSaysWhoChoseIt() throws {
        let sandbox = try JuiceSandbox()
        func origin(_ arguments: [String], environment: [String: String] = [:]) throws -> String? {
            let run = try sandbox.run(["config", "show", "--json"] + arguments, environment: environment)
            return ((try run.json() as? [String: Any])?["from"] as? [String: String])?["store.path"]
        }
        let config = try sandbox.write(#"{"store": {"path": "shop.sqlite"}}"#, to: "juice.json")
        #expect(try origin([]) == "JUICE_MAKER_STORE")
        #expect(try origin(["--store", sandbox.root + "/other.sqlite"]) == "--store")
        #expect(try origin(["--in-memory"]) == "--in-memory")
        #expect(try origin(["--config", config], environment: ["JUICE_MAKER_STORE": ""]) == "file")
        let builtIn = try sandbox.run(["config", "show", "--json"])
        let from = try #require((try builtIn.json() as? [String: Any])?["from"] as? [String: String])
        #expect(from.filter { $0.key != "store.path" }.values.allSatisfy { $0 == "default" }, "\(from)")
    }

    /// Values are looked up by their exact name, so a name differing only in case
    /// would be ignored: it is refused as an unknown key, at the top level, inside
    /// an object, and inside a subscriber, whatever else the file says.
    @Test(arguments: [
        (#"{"Language": "ko"}"#, "Language"),
        (#"{"initialstock": 3}"#, "initialstock"),
        (#"{"store": {"Durability": "normal"}}"#, "store.Durability"),
        (#"{"subscribers": [{"type": "logger", "Level": "debug"}]}"#, "subscribers[0].Level"),
        (#"{"subscribers": [{"type": "cli-notifier", "Enabled": false}]}"#, "subscribers[0].Enabled"),
        (#"{"subscribers": [{"Type": "logger"}]}"#, "subscribers[0]"),
    ])
    func aKeyDifferingOnlyInCaseIsUnknown(config: String, path: String) throws {
        let sandbox = try JuiceSandbox()
        let file = try sandbox.write(config, to: "juice.json")
        for arguments in [["config", "check"], ["config", "show"], ["stock"]] {
            let run = try sandbox.run(arguments + ["--config", file])
            #expect(run.status == 78, "\(arguments): \(run.stderr)")
            #expect(run.stderr.contains(": \(path)"), "\(run.stderr)")
            #expect(run.stderr.split(separator: "\n").count == 1)
        }
        #expect(sandbox.storeBytes() == nil)
    }
}
