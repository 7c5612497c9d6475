import JuiceMakerCore

/// Replaces `${NAME}` in every string value of a config document with the value of
/// the environment variable `NAME`. A variable that is not set is an error naming it
/// and the JSON path; nothing else about the document changes. The paths of strings
/// that took a value, and the values taken, are reported, so `config show` and error
/// messages can hide them (`Redaction`).
struct EnvironmentSubstitution: Sendable {
    let environment: [String: String]
    let file: String?

    func apply(_ value: ConfigValue, path: String = "") throws(ConfigurationError) -> (value: ConfigValue, substituted: Redaction) {
        var substituted = Set<String>()
        let result = try walk(value, path: path, substituted: &substituted)
        let values = Set(Self.variableNames(in: value).compactMap { environment[$0] })
        return (result, Redaction(paths: substituted, values: values))
    }

    /// Every `${NAME}` named in the document's strings.
    private static func variableNames(in value: ConfigValue) -> [String] {
        switch value {
        case .string(let text):
            var names: [String] = []
            var rest = Substring(text)
            while let start = rest.range(of: "${"), let close = rest[start.upperBound...].firstIndex(of: "}") {
                names.append(String(rest[start.upperBound..<close]))
                rest = rest[rest.index(after: close)...]
            }
            return names
        case .array(let items): return items.flatMap(variableNames)
        case .object(let members): return members.flatMap { variableNames(in: $0.value) }
        default: return []
        }
    }

    private func walk(_ value: ConfigValue, path: String, substituted: inout Set<String>) throws(ConfigurationError) -> ConfigValue {
        switch value {
        case .string(let text) where text.contains("${"):
            substituted.insert(path)
            return .string(try expand(text, path: path))
        case .array(let items):
            var result: [ConfigValue] = []
            for (index, item) in items.enumerated() {
                result.append(try walk(item, path: "\(path)[\(index)]", substituted: &substituted))
            }
            return .array(result)
        case .object(let members):
            var result: [(key: String, value: ConfigValue)] = []
            for member in members {
                let child = path.isEmpty ? member.key : "\(path).\(member.key)"
                result.append((member.key, try walk(member.value, path: child, substituted: &substituted)))
            }
            return .object(result)
        default:
            return value
        }
    }

    private func expand(_ text: String, path: String) throws(ConfigurationError) -> String {
        var result = ""
        var rest = Substring(text)
        while let start = rest.range(of: "${") {
            result += rest[..<start.lowerBound]
            let afterOpen = rest[start.upperBound...]
            guard let close = afterOpen.firstIndex(of: "}") else {
                throw ConfigurationError(file: file, path: path, problem: "unterminated \"${\"; write ${NAME}")
            }
            let name = String(afterOpen[..<close])
            guard Self.isVariableName(name) else {
                throw ConfigurationError(file: file, path: path, problem: "\"${\(name)}\" is not a variable name; use letters, digits and _")
            }
            guard let value = environment[name] else {
                throw ConfigurationError(
                    file: file, path: path,
                    problem: "the environment variable \(name) is not set; export \(name) or remove ${\(name)}")
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
