import Foundation
import JuiceTestSupport
import Testing

/// A bad config stops `juice` before anything runs: one line naming the file, the
/// JSON path and what was expected; exit 78; the store file's bytes unchanged.
@Suite(.tags(.process), .notInUnitRun, .offPool) struct ConfigErrorTests {
    /// Makes a store with some history, runs `order banana` with `config`, and checks
    /// the failure.
    private func expectConfigError(
        _ config: String, mentions expected: [String], environment: [String: String] = [:]
    ) throws {
        let sandbox = try JuiceSandbox()
        try sandbox.run(["stock", "add", "kiwi", "1"])
        let before = sandbox.storeBytes()
        let path = try sandbox.write(config, to: "bad/juice.json")
        let result = try sandbox.run(["order", "banana", "--config", path], environment: environment)
        #expect(result.status == 78, "\(result.stderr)")
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        #expect(result.stderr.contains(path), "\(result.stderr)")
        for text in expected { #expect(result.stderr.contains(text), "\(text) not in \(result.stderr)") }
        #expect(sandbox.storeBytes() == before)
    }

    @Test func unknownKey() throws {
        try expectConfigError(#"{"initialStok": 3}"#, mentions: ["initialStok", "initialStock"])
    }

    /// One check for a NATS URL: `fleet.url` is refused as the `nats` subscriber's `url`
    /// is (before, config check took for the fleet what it refused for the subscriber).
    @Test(arguments: ["http://example.com:4222/x", "nats://host:99999", "nats://host/path"])
    func aFleetURLIsCheckedAsTheNATSSubscribersIs(url: String) throws {
        let expected = ["expected nats://host:port"]
        try expectConfigError(#"{"fleet": {"url": "\#(url)"}}"#, mentions: ["fleet.url"] + expected)
        try expectConfigError(#"{"subscribers": [{"type": "nats", "url": "\#(url)"}]}"#, mentions: ["subscribers[0].url"] + expected)
    }

    @Test func unknownSubscriberKey() throws {
        try expectConfigError(
            #"{"subscribers": [{"type": "cli-notifier"}, {"type": "logger", "colour": true}]}"#,
            mentions: ["subscribers[1].colour", "level"])
    }

    @Test func wrongType() throws {
        try expectConfigError(#"{"initialStock": "ten"}"#, mentions: ["initialStock", "whole number"])
    }

    @Test func badPluginValue() throws {
        try expectConfigError(#"{"subscribers": [{"type": "logger", "level": "loud"}]}"#, mentions: ["subscribers[0].level", "info"])
    }

    @Test func unknownSubscriberType() throws {
        try expectConfigError(#"{"subscribers": [{"type": "pager"}]}"#, mentions: ["subscribers[0].type", "logger", "cli-notifier"])
    }

    @Test func missingEnvironmentVariable() throws {
        try expectConfigError(
            #"{"subscribers": [{"type": "logger", "path": "${JUICE_TEST_UNSET_LOG}"}]}"#,
            mentions: ["JUICE_TEST_UNSET_LOG", "subscribers[0].path"])
    }

    @Test(
        "a disabled subscriber's values are checked: it is still config someone wrote",
        arguments: [
            (#"{"type": "logger", "enabled": false, "level": "loud"}"#, "subscribers[0].level"),
            (#"{"type": "webhook", "enabled": false}"#, "subscribers[0].url"),
            (#"{"type": "command", "enabled": false, "command": []}"#, "subscribers[0].command"),
            (#"{"type": "webhook", "enabled": false, "url": "http://127.0.0.1:9/", "timeoutSeconds": 0}"#, "subscribers[0].timeoutSeconds"),
        ])
    func disabledSubscribersAreChecked(subscriber: String, path: String) throws {
        try expectConfigError(#"{"subscribers": [\#(subscriber)]}"#, mentions: [path, "expected"])
    }

    @Test func duplicateEventsAreRefused() throws {
        try expectConfigError(
            #"{"subscribers": [{"type": "logger", "events": ["juiceMade", "orderFailed", "juiceMade"]}]}"#,
            mentions: ["subscribers[0].events[2]", #""juiceMade" is listed twice"#, "events[0]"])
    }

    @Test func emptyWorkingDirectoryIsRefused() throws {
        try expectConfigError(
            #"{"subscribers": [{"type": "command", "command": ["/bin/cat"], "workingDirectory": ""}]}"#,
            mentions: ["subscribers[0].workingDirectory", "empty path"])
    }

    @Test(
        "environment names must be non-empty without =, values without NUL",
        arguments: [
            (#"{"": "z"}"#, #"subscribers[0].environment[""]"#, "empty variable name"),
            (#"{"A=B": "z"}"#, #"subscribers[0].environment["A=B"]"#, #"contains "=""#),
            (#"{"A": "z\u0000y"}"#, "subscribers[0].environment.A", #""z\u0000y" contains a NUL"#),
        ])
    func badEnvironmentIsRefused(environment: String, path: String, problem: String) throws {
        try expectConfigError(
            #"{"subscribers": [{"type": "command", "command": ["/bin/cat"], "environment": \#(environment)}]}"#,
            mentions: [path, problem])
    }

    @Test(
        "messages name the expected value and echo numbers as written",
        arguments: [
            (
                #"{"subscribers": [{"type": "webhook", "url": "http://127.0.0.1:9/", "retrySchedule": [-1]}]}"#,
                ["subscribers[0].retrySchedule[0]: -1 is below 0", "from 0 to 604800"]
            ),
            (
                #"{"initialStock": 99999999999999999999999}"#,
                ["initialStock: 99999999999999999999999 is above 1000000", "whole number from 0 to 1000000"]
            ),
            (#"{"flushDeadlineSeconds": 1e3}"#, ["flushDeadlineSeconds: 1e3 is above 60"]),
            (#"{"backgroundDelivery": "yes"}"#, ["backgroundDelivery: expected true or false, found a string"]),
            (
                #"{"subscribers": [{"type": "command", "command": ["/bin/cat"], "timeoutSeconds": 0}]}"#,
                ["subscribers[0].timeoutSeconds: 0 is not above 0", "at most 3600"]
            ),
            (
                #"{"subscribers": [{"type": "logger", "name": "\#(String(repeating: "x", count: 300))"}]}"#,
                ["subscribers[0].name: the name is 300 characters long, above the maximum of 64; write a shorter name"]
            ),
        ])
    func messagesNameTheExpectedValue(config: String, mentions: [String]) throws {
        try expectConfigError(config, mentions: mentions)
    }

    /// An empty option value is a usage error (the parser refuses it for every option,
    /// before any config is read): one error line, then the usage reminder.
    @Test func emptyConfigOptionSaysEmptyPath() throws {
        let sandbox = try JuiceSandbox()
        let result = try sandbox.run(["stock", "--config", ""])
        #expect(result.status == 64)
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.first?.contains("empty path for '--config <path>'") == true, "\(result.stderr)")
        #expect(lines.dropFirst().allSatisfy { $0.contains("Usage") || $0.contains("--help") }, "\(result.stderr)")
    }

    @Test("a ${NAME} missing in a disabled subscriber blocks nothing; config check warns about it")
    func missingVariableInADisabledSubscriber() throws {
        let sandbox = try JuiceSandbox()
        let path = try sandbox.write(
            #"""
            {"subscribers": [{"type": "webhook", "enabled": false, "url": "${JUICE_TEST_UNSET_URL}"}]}
            """#, to: "juice.json")
        let stock = try sandbox.run(["stock", "add", "kiwi", "1", "--config", path])
        #expect(stock.status == 0, "\(stock.stderr)")
        #expect(stock.stderr.isEmpty, "\(stock.stderr)")
        let check = try sandbox.run(["config", "check", "--config", path])
        #expect(check.status == 0, "\(check.stderr)")
        #expect(check.stderr.contains("warning"), "\(check.stderr)")
        #expect(check.stderr.contains("subscribers[0].url"))
        #expect(check.stderr.contains("JUICE_TEST_UNSET_URL"))
        // Its other values are still checked.
        let bad = try sandbox.write(
            #"""
            {"subscribers": [{"type": "webhook", "enabled": false, "url": "${JUICE_TEST_UNSET_URL}", "timeoutSeconds": -1}]}
            """#, to: "bad.json")
        #expect(try sandbox.run(["stock", "--config", bad]).status == 78)
    }

    @Test func malformedJSONNamesLineAndColumn() throws {
        try expectConfigError("{\n  \"language\": \"en\",\n  \"initialStock\": 10,,\n}", mentions: ["line 3", "column 22"])
    }

    @Test func unreadableFile() throws {
        let sandbox = try JuiceSandbox()
        try sandbox.run(["stock", "add", "kiwi", "1"])
        let before = sandbox.storeBytes()
        let result = try sandbox.run(["order", "banana", "--config", sandbox.root + "/missing.json"])
        #expect(result.status == 78)
        #expect(result.stderr.contains("missing.json"))
        #expect(sandbox.storeBytes() == before)
        let fromEnvironment = try sandbox.run(["stock"], environment: ["JUICE_MAKER_CONFIG": sandbox.root + "/nope.json"])
        #expect(fromEnvironment.status == 78)
        #expect(fromEnvironment.stderr.contains("nope.json"))
    }

    @Test func environmentValuesAreUsedAndHidden() throws {
        let sandbox = try JuiceSandbox()
        let path = try sandbox.write(
            #"{"subscribers": [{"type": "logger", "path": "${JUICE_TEST_LOG}"}]}"#, to: "juice.json")
        let log = sandbox.root + "/secret-place.log"
        let show = try sandbox.run(["config", "show", "--config", path], environment: ["JUICE_TEST_LOG": log])
        #expect(show.status == 0)
        #expect(show.stdout.contains("***"))
        #expect(!show.stdout.contains("secret-place"))
        #expect(show.stdout.contains(path))
        try sandbox.run(["order", "banana", "--config", path], environment: ["JUICE_TEST_LOG": log])
        #expect(FileManager.default.fileExists(atPath: log))
    }

    @Test func searchOrderFindsTheWorkingDirectoryThenXDG() throws {
        let sandbox = try JuiceSandbox()
        let xdg = try sandbox.write(#"{"initialStock": 3, "subscribers": []}"#, to: "config/juice-maker/config.json")
        let fromXDG = try sandbox.run(["config", "show"])
        #expect(fromXDG.stdout.contains(xdg))
        let local = try sandbox.write(#"{"initialStock": 4, "subscribers": []}"#, to: "work/config/juice-maker.json")
        let fromLocal = try sandbox.run(["config", "show"])
        #expect(fromLocal.stdout.contains(local))
        #expect(try sandbox.stock(["--in-memory"])["kiwi"] == 4)
    }
}
