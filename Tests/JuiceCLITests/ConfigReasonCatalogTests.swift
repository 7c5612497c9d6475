import Foundation
import JuiceMakerCore
import JuiceMakerPluginKit
import JuicePrimitives
import JuiceTestSupport
import Testing
@testable import JuiceCLI

/// The catalog renders every config reason, every expectation and every JSON problem
/// in both languages, one line each.
@Suite(.tags(.unit)) struct ConfigReasonCatalogTests {
    static let expectations: [ConfigurationExpectation] = {
        let all: [ConfigurationExpectation] = [
            .string, .nonEmpty("path"), .httpURL, .oneOf(["info", "debug"]), .boolean,
            .number(minimum: "0", exclusiveMinimum: false, maximum: "60", unit: "seconds"),
            .number(minimum: "0", exclusiveMinimum: true, maximum: "3600", unit: nil), .integer(0...1_000_000),
            .list(.string, minimumCount: 1, unique: true), .dictionary(values: .string), .object(keys: ["path", "durability"]),
            .anyObject, .subscriberList, .variableName,
            .described(PluginMessage(english: "a directory path", korean: "디렉터리 경로")),
        ]
        for expectation in all {
            switch expectation {
            case .string, .nonEmpty, .httpURL, .oneOf, .boolean, .number, .integer, .list, .dictionary, .object, .anyObject,
                .subscriberList, .variableName, .described:
                break
            }
        }
        return all
    }()

    static let problems: [JSONProblem] = {
        let all: [JSONProblem] = [
            .textAfterValue, .nestedTooDeep(64), .expectedValue(.endOfFile), .expectedKey(.character("x")),
            .expectedColon(.unexpectedCharacter), .expectedCommaOrBrace(.character("]")), .expectedCommaOrBracket(.endOfFile),
            .duplicateKey("a"), .unterminatedString, .controlCharacter, .unknownEscape("q"), .expectedHexDigits,
            .loneSurrogate, .invalidSurrogatePair, .expectedDigits, .leadingZero, .expectedFractionDigits,
            .expectedExponentDigits, .numberOutOfRange,
        ]
        for problem in all {
            switch problem {
            case .textAfterValue, .nestedTooDeep, .expectedValue, .expectedKey, .expectedColon, .expectedCommaOrBrace,
                .expectedCommaOrBracket, .duplicateKey, .unterminatedString, .controlCharacter, .unknownEscape,
                .expectedHexDigits, .loneSurrogate, .invalidSurrogatePair, .expectedDigits, .leadingZero,
                .expectedFractionDigits, .expectedExponentDigits, .numberOutOfRange:
                break
            }
        }
        return all
    }()

    /// Every reason, one value each (an expectation of each kind, a JSON problem of
    /// each kind); the switch fails to compile when a case is added and not listed.
    static let reasons: [ConfigurationError.Reason] = {
        let expected = ConfigurationExpectation.integer(0...10)
        var all: [ConfigurationError.Reason] = [
            .unknownKey(#""colour""#, allowed: ["type", "level"]), .wrongType(expected: expected, found: .string),
            .notAllowed(value: #""loud""#, expected: .oneOf(["info"])),
            .belowMinimum(value: "-1", minimum: "0", exclusive: false, expected: expected),
            .belowMinimum(value: "0", minimum: "0", exclusive: true, expected: expected),
            .aboveMaximum(value: "1e99", maximum: "10", expected: expected), .notWholeNumber(value: "1.5", expected: expected),
            .tooFewItems(found: 0, expected: expected), .tooFewItems(found: 2, expected: expected),
            .duplicate(value: #""juiceMade""#, firstAt: "subscribers[0].events[0]"), .empty(noun: "path", expected: expected),
            .tooLong(noun: "name", length: 300, maximum: 64),
            .containsNUL(.value, value: #""a\u0000""#), .containsNUL(.name, value: #""a\u0000""#),
            .containsEquals(.name, value: #""A=B""#), .missingKey(expected: expected),
            .nameInUse(#""hook""#, usedBy: "subscribers[0]"), .missingVariable("TOKEN"), .unterminatedVariable,
            .notAVariableName(#""${1x}""#), .malformedJSON(line: 2, column: 1, .expectedValue(.endOfFile)),
            .cannotRead(SystemFailure(code: ENOENT, message: "No such file or directory")), .notARegularFile(.fifo), .notUTF8, .emptyConfigPath,
            .plugin(PluginMessage(english: "no executable program", korean: "실행할 수 있는 프로그램이 없습니다")),
        ]
        all += expectations.map { .wrongType(expected: $0, found: .number) }
        all += problems.map { .malformedJSON(line: 1, column: 3, $0) }
        for reason in all {
            switch reason {
            case .unknownKey, .wrongType, .notAllowed, .belowMinimum, .aboveMaximum, .notWholeNumber, .tooFewItems,
                .duplicate, .empty, .tooLong, .containsNUL, .containsEquals, .missingKey, .nameInUse, .missingVariable,
                .unterminatedVariable, .notAVariableName, .malformedJSON, .cannotRead, .notARegularFile, .notUTF8, .emptyConfigPath, .plugin:
                break
            }
        }
        return all
    }()

    @Test func theCatalogRendersEveryReasonInBothLanguagesOnOneLine() {
        for reason in Self.reasons {
            let error = ConfigurationError(file: "/c/juice.json", path: "subscribers[0].level", reason: reason)
            let line = Catalog.Errors.config(error)
            #expect(line.english.hasPrefix("config \(error.description). "), "\(line.english)")
            #expect(!LocalizedErrorTests.hasHangul(line.english), "\(line.english)")
            #expect(line.korean.hasPrefix("설정 오류: /c/juice.json: subscribers[0].level: "), "\(line.korean)")
            #expect(!line.english.contains("\n") && !line.korean.contains("\n"))
            let korean = Catalog.ConfigErrors.reason(reason).korean
            #expect(LocalizedErrorTests.hasHangul(korean), "\(korean)")
            #expect(!line.korean.contains(reason.description), "untranslated: \(line.korean)")
            #expect(
                LocalizedErrorTests.readsAsKorean(korean, data: Self.data, words: LocalizedConfigErrorTests.configWords),
                "\(korean)")
        }
    }

    /// The data the reasons above hold: keys, values, names, paths, commands.
    static let data = [
        #""a\u0000""#, #""a""#, #""colour""#, "type", "level", #""loud""#, "info", "debug", "durability", "path", #""juiceMade""#,
        "subscribers[0].events[0]", #""A=B""#, #""hook""#, "subscribers[0]", "TOKEN", "${TOKEN}", "(export)", "${NAME}",
        #""${1x}""#, "NUL", "UTF-8", "JSON", "--config", "http://", "https://", "URL", "true", "false", "null",
        #""LOG_LEVEL""#, "\\u", "\\n", "\\t",
    ]

    @Test func anErrorKeepsItsEnglishDescriptionForLogsAndTests() {
        let error = ConfigurationError(
            file: "bad.json", path: "subscribers[0].level",
            reason: .notAllowed(value: #""loud""#, expected: .oneOf(["info", "debug"])))
        #expect(error.description == #"bad.json: subscribers[0].level: expected one of info, debug, found "loud""#)
    }
}
