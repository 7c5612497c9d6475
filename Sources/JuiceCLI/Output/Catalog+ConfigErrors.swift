import JuiceJSON
import JuiceMakerPluginKit

/// Config errors: the library's reason in both languages. The file, the JSON path,
/// keys, values and numbers are data and stay as written.
extension Catalog {
    enum ConfigErrors {
        /// `file: path: reason`, or less when the file or the path is not known.
        static func located(_ error: ConfigurationError) -> T {
            // Texts from the file (values, keys, names) are echoed: escaped and cut.
            let why = reason(error.mapText { echo($0) }.reason)
            let file = error.file.map { echo(path: $0) }
            let location = [file, error.path.isEmpty ? nil : echo(error.path)].compactMap { $0 }.joined(separator: ": ")
            return location.isEmpty ? why : T("\(location): \(why.english)", ko: "\(location): \(why.korean)")
        }

        /// What is wrong, without the location.
        static func reason(_ reason: ConfigurationError.Reason) -> T {
            T(reason.description, ko: korean(reason))
        }

        private static func korean(_ reason: ConfigurationError.Reason) -> String {
            func needs(_ expected: ConfigurationExpectation) -> String { "필요한 값은 \(korean(expected))입니다" }
            switch reason {
            case let .unknownKey(key, allowed):
                return "알 수 없는 키 \(key)입니다. 쓸 수 있는 키: \(allowed.joined(separator: ", "))"
            case let .wrongType(expected, found):
                return "필요한 값은 \(korean(expected))인데 \(korean(found))입니다"
            case let .notAllowed(value, expected):
                return "필요한 값은 \(korean(expected))인데 \(value)입니다"
            case let .belowMinimum(value, minimum, exclusive, expected):
                return "\(value)은(는) \(minimum)보다 \(exclusive ? "크지 않습니다" : "작습니다"). \(needs(expected))"
            case let .aboveMaximum(value, maximum, expected):
                return "\(value)은(는) \(maximum)보다 큽니다. \(needs(expected))"
            case let .notWholeNumber(value, expected):
                return "\(value)은(는) 정수가 아닙니다. \(needs(expected))"
            case let .tooFewItems(found, expected):
                return "\(found == 0 ? "빈 배열입니다" : "항목이 \(found)개뿐입니다"). \(needs(expected))"
            case let .duplicate(value, firstAt):
                return "\(value)이(가) 두 번 있습니다(\(firstAt)에도 있음). 한 번씩만 쓰세요"
            case let .empty(_, expected):
                return "비어 있습니다. \(needs(expected))"
            case let .tooLong(noun, length, maximum):
                return "\(noun == "name" ? "이름" : noun)이(가) \(length)자로, 최대 \(maximum)자보다 깁니다. 더 짧게 쓰세요"
            case let .containsNUL(part, value):
                return "\(korean(part)) \(value)에 NUL 문자(\\u0000)가 있습니다. 지우세요"
            case let .containsEquals(part, value):
                return "\(korean(part)) \(value)에 \"=\"가 있습니다. 이름만 키로 쓰고 값은 오른쪽에 쓰세요"
            case let .missingKey(expected):
                return "빠져 있습니다. \(needs(expected))"
            case let .nameInUse(name, usedBy):
                return "이름 \(name)은(는) 이미 \(usedBy)이(가) 쓰고 있습니다. 이름은 서로 달라야 합니다"
            case let .missingVariable(name):
                return "환경 변수 \(name)이(가) 설정되지 않았습니다. \(name)을(를) 내보내거나(export) ${\(name)}을(를) 지우세요"
            case .unterminatedVariable:
                return "\"${\"가 닫히지 않았습니다. ${NAME}처럼 쓰세요"
            case let .notAVariableName(text):
                return "\(text)은(는) 변수 이름이 아닙니다. 영문자, 숫자, _만 쓰세요"
            case let .malformedJSON(line, column, problem):
                return "JSON 형식이 잘못되었습니다(\(line)행 \(column)열): \(korean(problem))"
            case let .cannotRead(failure):
                return "파일을 읽을 수 없습니다(\(failure.korean))"
            case let .notARegularFile(kind):
                return "일반 파일이 아닙니다(\(kind.korean)). JSON 파일의 경로를 주세요"
            case .notUTF8:
                return "UTF-8 텍스트 파일이 아닙니다"
            case .emptyConfigPath:
                return "--config: 경로가 비어 있습니다. 설정 파일 경로를 주거나 --config를 빼세요"
            case let .plugin(message):
                return message.korean
            }
        }

        private static func korean(_ part: ConfigurationError.StringPart) -> String {
            switch part {
            case .value: "값"
            case .name: "이름"
            }
        }

        static func korean(_ kind: JSONValue.Kind) -> String {
            switch kind {
            case .null: "null"
            case .boolean: "불리언"
            case .number: "수"
            case .string: "문자열"
            case .array: "배열"
            case .object: "객체"
            }
        }

        static func korean(_ expected: ConfigurationExpectation) -> String {
            switch expected {
            case .string: return "문자열"
            case .nonEmpty: return "비어 있지 않은 문자열"
            case .httpURL: return "호스트가 있는 http:// 또는 https:// URL"
            case .oneOf(let allowed): return "\(allowed.joined(separator: ", ")) 중 하나"
            case .boolean: return "true 또는 false"
            case let .number(minimum, exclusive, maximum, unit):
                let what = unit == "seconds" ? "초 단위 수" : "수"
                return exclusive ? "\(minimum)보다 크고 \(maximum) 이하인 \(what)" : "\(minimum)부터 \(maximum)까지의 \(what)"
            case .integer(let range): return "\(range.lowerBound)부터 \(range.upperBound)까지의 정수"
            case let .list(item, minimumCount, unique):
                var text = minimumCount > 0 ? "항목이 \(minimumCount)개 이상인 배열" : "배열"
                text += "(각 항목은 \(korean(item))"
                return text + (unique ? ", 각각 한 번만)" : ")")
            case .dictionary(let values): return "값이 모두 \(korean(values))인 객체"
            case .object(let keys): return "키가 \(keys.joined(separator: ", "))인 객체"
            case .anyObject: return "객체"
            case .subscriberList: return "구독자 객체의 배열"
            case .variableName: return "\"LOG_LEVEL\" 같은 이름"
            case .described(let message): return message.korean
            }
        }

        static func korean(_ problem: JSONProblem) -> String {
            switch problem {
            case .textAfterValue: return "JSON 값 뒤에 다른 글자가 있습니다"
            case .nestedTooDeep(let levels): return "\(levels)단계보다 깊이 중첩되었습니다"
            case .expectedValue(let found): return "값이 와야 하는데 \(korean(found))입니다"
            case .expectedKey(let found): return "큰따옴표로 감싼 키가 와야 하는데 \(korean(found))입니다"
            case .expectedColon(let found): return "키 뒤에 ':'가 와야 하는데 \(korean(found))입니다"
            case .expectedCommaOrBrace(let found): return "',' 또는 '}'가 와야 하는데 \(korean(found))입니다"
            case .expectedCommaOrBracket(let found): return "',' 또는 ']'가 와야 하는데 \(korean(found))입니다"
            case .duplicateKey(let key): return "키 \"\(key)\"가 두 번 있습니다"
            case .unterminatedString: return "문자열이 닫히지 않았습니다"
            case .controlCharacter: return "문자열 안에 제어 문자가 있습니다. 이스케이프(\\n, \\t)로 쓰세요"
            case .unknownEscape(let letter): return "알 수 없는 이스케이프 '\\\(letter)'입니다"
            case .expectedHexDigits: return "\\u 뒤에는 16진수 네 자리가 와야 합니다"
            case .loneSurrogate: return "\\u 이스케이프에 짝 없는 서로게이트가 있습니다"
            case .invalidSurrogatePair: return "\\u 이스케이프의 서로게이트 쌍이 잘못되었습니다"
            case .expectedDigits: return "수에 숫자가 없습니다"
            case .leadingZero: return "수는 0으로 시작할 수 없습니다"
            case .expectedFractionDigits: return "소수점 뒤에 숫자가 와야 합니다"
            case .expectedExponentDigits: return "지수에 숫자가 와야 합니다"
            case .numberOutOfRange: return "수가 범위를 벗어났습니다"
            }
        }

        private static func korean(_ found: JSONProblem.Found) -> String {
            switch found {
            case .endOfFile: "파일 끝"
            case .character(let character): "'\(character)'"
            case .unexpectedCharacter: "예상하지 못한 문자"
            }
        }
    }
}
