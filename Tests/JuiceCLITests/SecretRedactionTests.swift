import Foundation
import JuiceTestSupport
import Testing

/// A value taken from the environment never reaches the terminal: not in a config
/// error (even one a plugin's own check writes), not in `config show`. A URL's
/// credentials are hidden too, and `config show` refuses a config `config check` refuses.
@Suite(.tags(.process), .notInUnitRun, .offPool) struct SecretRedactionTests {
    private let secret = "TOPSECRET-4711"

    private func run(_ config: String, _ arguments: [String]) throws -> ProgramRun {
        let sandbox = try JuiceSandbox()
        let path = try sandbox.write(config, to: "juice.json")
        return try sandbox.run(arguments + ["--config", path], environment: ["JUICE_TEST_SECRET": secret])
    }

    @Test(
        "config errors show *** where an environment value would be",
        arguments: [
            #"{"subscribers": [{"type": "logger", "level": "${JUICE_TEST_SECRET}"}]}"#,
            #"{"subscribers": [{"type": "webhook", "url": "${JUICE_TEST_SECRET}"}]}"#,
            #"{"subscribers": [{"type": "webhook", "url": "http://127.0.0.1:9/x", "events": ["${JUICE_TEST_SECRET}"]}]}"#,
            #"{"language": "${JUICE_TEST_SECRET}"}"#,
        ])
    func errorsHideEnvironmentValues(config: String) throws {
        for arguments in [["order", "banana"], ["config", "check"], ["config", "show"]] {
            let result = try run(config, arguments)
            #expect(result.status == 78, "\(arguments): \(result.stderr)")
            #expect(!result.stderr.contains(secret), "\(arguments): \(result.stderr)")
            #expect(!result.stdout.contains(secret))
            #expect(result.stderr.contains("***"), "\(result.stderr)")
        }
    }

    @Test("config show masks a name from the environment and a URL's user:password")
    func showMasksNamesAndCredentials() throws {
        let config = #"""
            {"subscribers": [
              {"type": "cli-notifier", "name": "${JUICE_TEST_SECRET}"},
              {"type": "webhook", "url": "http://user:pw-4711@127.0.0.1:9/x"}
            ]}
            """#
        let result = try run(config, ["config", "show"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stdout.contains(secret))
        #expect(!result.stdout.contains("pw-4711"))
        #expect(result.stdout.contains("http://***@127.0.0.1:9/x"))
    }

    @Test("a URL's query values never print: not in config show, not in an error")
    func queryValuesAreHidden() throws {
        let shown = try run(#"{"subscribers": [{"type": "webhook", "url": "https://127.0.0.1:9/hook?token=tok-4711&v=2"}]}"#, ["config", "show"])
        #expect(shown.status == 0, "\(shown.stderr)")
        #expect(!shown.stdout.contains("tok-4711"), "\(shown.stdout)")
        #expect(shown.stdout.contains("https://127.0.0.1:9/hook?token=***&v=***"), "\(shown.stdout)")
        let refused = try run(#"{"subscribers": [{"type": "webhook", "url": "ftp://127.0.0.1/x?token=tok-4711"}]}"#, ["config", "check"])
        #expect(refused.status == 78)
        #expect(refused.stderr.contains("subscribers[0].url"), "\(refused.stderr)")
        #expect(!refused.stderr.contains("tok-4711"), "\(refused.stderr)")
    }

    @Test(
        "config check takes Standard Webhooks secrets with or without padding and prefix",
        arguments: [
            "whsec_YWJjZA", "whsec_YWJjZA==", "YWJjZA", "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
        ])
    func acceptsStandardWebhooksSecrets(secret: String) throws {
        let config = #"{"subscribers": [{"type": "webhook", "url": "http://127.0.0.1:9/x", "secret": "\#(secret)"}]}"#
        let check = try run(config, ["config", "check"])
        #expect(check.status == 0, "\(check.stderr)")
    }

    @Test("a secret that is not base64 is refused without being shown")
    func refusesTextSecretsWithoutShowingThem() throws {
        let config = #"{"subscribers": [{"type": "webhook", "url": "http://127.0.0.1:9/x", "secret": "pass phrase-4711"}]}"#
        let check = try run(config, ["config", "check"])
        #expect(check.status == 78)
        #expect(check.stderr.contains("subscribers[0].secret") && check.stderr.contains("base64"), "\(check.stderr)")
        // The secret's text, not its marker alone: the sandbox's random path may hold "4711".
        #expect(!check.stderr.contains("phrase-4711"))
        #expect(check.stderr.split(separator: "\n").count == 1)
    }

    @Test("config show refuses what only the plugin's own check finds, like config check")
    func showRunsThePluginChecks() throws {
        let config = #"{"subscribers": [{"type": "webhook", "url": "http://127.0.0.1:9/x", "secret": "whsec_not-base64!"}]}"#
        let show = try run(config, ["config", "show"])
        let check = try run(config, ["config", "check"])
        #expect(show.status == 78, "\(show.stderr)")
        #expect(check.status == 78)
        #expect(show.stdout.isEmpty)
        #expect(show.stderr.contains("subscribers[0].secret"))
    }

    @Test("config show masks a command's environment values and every argument after the program")
    func showMasksCommandSecrets() throws {
        let config = #"""
            {"subscribers": [{"type": "command", "command": [
                "/bin/cat", "https://user:up-4711@example.com/x?token=tq-4711", "admin:ap-4711", "--password=op-4711"],
              "environment": {"DB_PASSWORD": "dp-4711", "AWS_SECRET_ACCESS_KEY": "ak-4711", "DB_HOST": "dh-4711",
                "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "TZ": "Europe/Berlin"}}]}
            """#
        let result = try run(config, ["config", "show"])
        #expect(result.status == 0, "\(result.stderr)")
        // Each secret's text, not the marker alone: the sandbox's random path may hold "4711".
        for secret in ["up-4711", "tq-4711", "ap-4711", "op-4711", "dp-4711", "ak-4711", "dh-4711"] {
            #expect(!result.stdout.contains(secret), "\(secret) in \(result.stdout)")
        }
        #expect(result.stdout.contains(#"["/bin/cat", "***", "***", "***"]"#) || result.stdout.contains("\"/bin/cat\",\n"), "\(result.stdout)")
        for shown in [
            #""LANG": "C.UTF-8""#,
            #""LC_ALL": "C.UTF-8""#, #""TZ": "Europe/Berlin""#, #""DB_HOST": "***""#, "/bin/cat",
        ] {
            #expect(result.stdout.contains(shown), "\(shown) in \(result.stdout)")
        }
    }
}
