import Foundation
import JuiceTestSupport
import Testing

/// A bad config reads wholly in the person's language: under `--lang ko` the one
/// line has Hangul and no word of the English config messages (the file, JSON paths,
/// keys, values and commands are data); under `--lang en`, no Hangul. Exit 78.
@Suite(.tags(.process), .notInUnitRun, .offPool) struct LocalizedConfigErrorTests {
    /// Words of the English config messages; none may appear in a Korean line.
    static let configWords: Set<String> = LocalizedErrorTests.englishWords.union([
        "config", "expected", "found", "unknown", "key", "one", "whole", "number", "from", "to", "below", "listed",
        "twice", "also", "at", "list", "each", "once", "empty", "environment", "variable", "set", "remove",
        "malformed", "line", "column", "value", "end", "fix", "then", "missing", "material", "followed", "padding",
        "optional", "secrets", "shown", "new", "string", "array", "object", "non", "warning", "disabled", "needs",
        "now", "before", "enabling", "nothing", "integer",
    ])

    /// Data every config error line may hold: the fix names the check command.
    static let commonData = ["'juice config check'"]

    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let config: String
        let data: [String]
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(
            name: "unknown key", config: #"{"initialStok": 3}"#,
            data: ["initialStok", "$schema", "language", "initialStock", "store", "flushDeadlineSeconds", "subscribers"]),
        Case(name: "wrong type", config: #"{"initialStock": "ten"}"#, data: ["initialStock", #""ten""#]),
        Case(name: "number out of range", config: #"{"initialStock": 1e99}"#, data: ["initialStock", "1e99"]),
        Case(
            name: "not one of the allowed values", config: #"{"subscribers": [{"type": "logger", "level": "loud"}]}"#,
            data: ["subscribers[0].level", "trace", "debug", "info", "notice", "warning", "error", "critical", #""loud""#]),
        Case(
            name: "an event listed twice",
            config: #"{"subscribers": [{"type": "logger", "events": ["juiceMade", "juiceMade"]}]}"#,
            data: ["subscribers[0].events[1]", "subscribers[0].events[0]", #""juiceMade""#]),
        Case(
            name: "empty path", config: #"{"subscribers": [{"type": "logger", "path": ""}]}"#,
            data: ["subscribers[0].path", #""stderr""#]),
        Case(
            name: "missing environment variable",
            config: #"{"subscribers": [{"type": "logger", "path": "${JUICE_TEST_UNSET_LOG}"}]}"#,
            data: ["subscribers[0].path", "${JUICE_TEST_UNSET_LOG}", "(export)"]),
        Case(name: "malformed JSON", config: #"{"subscribers": ["#, data: []),
        Case(
            name: "a webhook secret that is not base64 (the plugin's own check)",
            config: #"{"subscribers": [{"type": "webhook", "url": "http://127.0.0.1:9/", "secret": "not base64!"}]}"#,
            data: ["subscribers[0].secret", "Standard Webhooks", "whsec_", #"printf 'whsec_%s' "$(openssl rand -base64 32)""#]),
    ]

    @Test(arguments: cases)
    func aBadConfigReadsInKoreanAndInEnglish(_ bad: Case) throws {
        let sandbox = try JuiceSandbox()
        let path = try sandbox.write(bad.config, to: "bad.json")
        let korean = try sandbox.run(["--lang", "ko", "--config", path, "stock"])
        #expect(korean.status == 78, "\(korean.stderr)")
        #expect(korean.stderr.split(separator: "\n").count == 1, "\(korean.stderr)")
        #expect(korean.stderr.contains(path), "\(korean.stderr)")
        #expect(
            LocalizedErrorTests.readsAsKorean(korean.stderr, data: [path] + bad.data + Self.commonData, words: Self.configWords),
            "\(korean.stderr)")
        let english = try sandbox.run(["--lang", "en", "--config", path, "stock"])
        #expect(english.status == 78, "\(english.stderr)")
        #expect(english.stderr.split(separator: "\n").count == 1, "\(english.stderr)")
        #expect(!LocalizedErrorTests.hasHangul(english.stderr), "\(english.stderr)")
        #expect(english.stderr.contains("Fix it, then run"), "\(english.stderr)")
    }

    @Test func theWarningForAVariableInADisabledSubscriberReadsInKorean() throws {
        let sandbox = try JuiceSandbox()
        let path = try sandbox.write(
            #"{"subscribers": [{"type": "logger", "enabled": false, "path": "${JUICE_TEST_UNSET_LOG}"}]}"#, to: "warn.json")
        let korean = try sandbox.run(["--lang", "ko", "--config", path, "config", "check"])
        #expect(korean.status == 0, "\(korean.stderr)")
        let lines = korean.stderr.split(separator: "\n").map(String.init)
        #expect(lines.count == 1, "\(korean.stderr)")
        let data = ["juice:", path, "subscribers[0].path", "${JUICE_TEST_UNSET_LOG}", "(export)"]
        #expect(LocalizedErrorTests.readsAsKorean(korean.stderr, data: data, words: Self.configWords), "\(korean.stderr)")
        let english = try sandbox.run(["--lang", "en", "--config", path, "config", "check"])
        #expect(english.stderr.contains("warning"), "\(english.stderr)")
        #expect(!LocalizedErrorTests.hasHangul(english.stderr), "\(english.stderr)")
    }
}
