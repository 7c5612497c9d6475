import JuiceJSON
import JuiceMakerPluginKit
import JuicePrimitives

/// Replaces `${NAME}` in every string value of a config document with the value of
/// the environment variable `NAME`. A variable that is not set is an error naming it
/// and the JSON path, except under a `lenientUnder` path (a disabled subscriber):
/// there the string is kept as written and the error is returned as a warning, since
/// nothing needs the value until the subscriber is enabled. Nothing else about the
/// document changes. The paths of strings that took a value, and the values taken,
/// are reported, so `config show` and error messages can hide them (`Redaction`).
struct EnvironmentSubstitution: Sendable {
    let environment: [String: String]
    let file: String?

    struct Result: Sendable {
        let value: JSONValue
        let redaction: Redaction
        /// Missing variables under a lenient path, one error each (file and path named).
        let unresolved: [ConfigurationError]

        /// Paths whose value is not known (kept as written, not checked).
        var unresolvedPaths: Set<String> { Set(unresolved.map(\.path)) }
    }

    func apply(_ value: JSONValue, path: String = "", lenientUnder lenient: [String] = []) throws(ConfigurationError) -> Result {
        var walker = Walker(substitution: self, lenient: Set(lenient))
        let result = try walker.walk(value, path: path)
        let values = Set(Self.variableNames(in: value).compactMap { environment[$0] })
        return Result(value: result, redaction: Redaction(paths: walker.substituted, values: values), unresolved: walker.unresolved)
    }

    /// Every `${NAME}` named in the document's strings.
    private static func variableNames(in value: JSONValue) -> [String] {
        switch value {
        case .string(let text):
            var names: [String] = []
            var rest = Substring(text)
            while let start = rest.firstRange(ofText: "${"), let close = rest[start.upperBound...].firstIndex(of: "}") {
                names.append(String(rest[start.upperBound..<close]))
                rest = rest[rest.index(after: close)...]
            }
            return names
        case .array(let items): return items.flatMap(variableNames)
        case .object(let members): return members.flatMap { variableNames(in: $0.value) }
        default: return []
        }
    }

    private struct Walker {
        let substitution: EnvironmentSubstitution
        /// Looked up by each enclosing path of a string's path: linear in the document.
        let lenient: Set<String>
        var substituted = Set<String>()
        var unresolved: [ConfigurationError] = []

        mutating func walk(_ value: JSONValue, path: String) throws(ConfigurationError) -> JSONValue {
            switch value {
            case .string(let text) where text.containsText("${"):
                substituted.insert(path)
                do {
                    return .string(try substitution.expand(text, path: path))
                } catch {
                    let isLenient = path.indices.contains { index in
                        (path[index] == "." || path[index] == "[") && lenient.contains(String(path[..<index]))
                    }
                    guard error.isMissingVariable, isLenient else { throw error.error }
                    unresolved.append(error.error)
                    return value
                }
            case .array(let items):
                var result: [JSONValue] = []
                for (index, item) in items.enumerated() {
                    result.append(try walk(item, path: "\(path)[\(index)]"))
                }
                return .array(result)
            case .object(let members):
                var result: [JSONMember] = []
                for member in members {
                    result.append(JSONMember(key: member.key, value: try walk(member.value, path: ConfigurationKey.path(path, member.key))))
                }
                return .object(result)
            default:
                return value
            }
        }
    }

    /// Why a string could not be expanded; a missing variable may be let through.
    private struct ExpansionFailure: Error {
        let error: ConfigurationError
        var isMissingVariable = false
    }

    private func expand(_ text: String, path: String) throws(ExpansionFailure) -> String {
        var result = ""
        var rest = Substring(text)
        while let start = rest.firstRange(ofText: "${") {
            result += rest[..<start.lowerBound]
            let afterOpen = rest[start.upperBound...]
            guard let close = afterOpen.firstIndex(of: "}") else {
                throw ExpansionFailure(error: ConfigurationError(file: file, path: path, reason: .unterminatedVariable))
            }
            let name = String(afterOpen[..<close])
            guard Self.isVariableName(name) else {
                throw ExpansionFailure(
                    error: ConfigurationError(
                        file: file, path: path, reason: .notAVariableName(ConfigurationKey.quoted("${\(name)}"))))
            }
            guard let value = environment[name] else {
                throw ExpansionFailure(
                    error: ConfigurationError(file: file, path: path, reason: .missingVariable(name)),
                    isMissingVariable: true)
            }
            result += value
            rest = afterOpen[afterOpen.index(after: close)...]
        }
        return result + rest
    }

    static func isVariableName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first == "_" || (first.isASCII && first.properties.isAlphabetic) else {
            return false
        }
        return name.unicodeScalars.allSatisfy { $0 == "_" || ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))) }
    }
}
