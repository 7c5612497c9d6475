import Foundation

/// Prometheus' text exposition format read strictly, for tests: every line a HELP or
/// TYPE comment or one sample, the text ending in a newline, every sample's family
/// declared by a TYPE line before it. Label values are unescaped.
package struct Exposition: Equatable {
    /// Sample value by `name{label="value",…}` (labels as read, unescaped, in order).
    package var samples: [String: Double] = [:]
    /// TYPE by family name.
    package var types: [String: String] = [:]

    /// The text read, or `nil` with the first problem: a cut-short or malformed file.
    package static func parse(_ text: String) -> Result<Exposition, ParseFailure> {
        guard !text.isEmpty, text.hasSuffix("\n") else { return .failure(ParseFailure("not ending in a newline")) }
        var result = Exposition()
        for line in text.dropLast().split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("# HELP ") { continue }
            if line.hasPrefix("# TYPE ") {
                let parts = line.split(separator: " ")
                guard parts.count == 4 else { return .failure(ParseFailure("bad TYPE line: \(line)")) }
                result.types[String(parts[2])] = String(parts[3])
                continue
            }
            guard let (key, family, value) = sample(Substring(line)) else { return .failure(ParseFailure("bad line: \(line)")) }
            guard result.types[family] != nil else { return .failure(ParseFailure("no TYPE before \(family)")) }
            result.samples[key] = value
        }
        return .success(result)
    }

    /// The value of `name` with one label, or without labels.
    package func value(_ name: String, _ label: String? = nil, _ value: String? = nil) -> Double? {
        guard let label, let value else { return samples[name] }
        return self.value(name, labels: [(label, value)])
    }

    /// The value of `name` with `labels` (name, unescaped value), in the order written.
    package func value(_ name: String, labels: [(String, String)]) -> Double? {
        samples[labels.isEmpty ? name : "\(name){" + labels.map { "\($0)=\"\($1)\"" }.joined(separator: ",") + "}"]
    }

    /// One sample line: its key (name and unescaped labels), family name and value.
    private static func sample(_ line: Substring) -> (String, String, Double)? {
        let nameEnd = line.firstIndex { $0 == "{" || $0 == " " } ?? line.endIndex
        let name = String(line[..<nameEnd])
        guard !name.isEmpty, name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == ":") }) else {
            return nil
        }
        var key = name
        var index = nameEnd
        if index < line.endIndex, line[index] == "{" {
            key += "{"
            index = line.index(after: index)
            var inQuotes = false
            while index < line.endIndex {
                let character = line[index]
                if inQuotes, character == "\\" {
                    index = line.index(after: index)
                    guard index < line.endIndex else { return nil }
                    switch line[index] {
                    case "\\": key += "\\"
                    case "\"": key += "\""
                    case "n": key += "\n"
                    default: return nil
                    }
                } else if character == "\"" {
                    inQuotes.toggle()
                    key += "\""
                } else if !inQuotes, character == "}" {
                    break
                } else {
                    key.append(character)
                }
                index = line.index(after: index)
            }
            guard index < line.endIndex, !inQuotes else { return nil }
            key += "}"
            index = line.index(after: index)
        }
        guard index < line.endIndex, line[index] == " ", let value = Double(line[line.index(after: index)...]) else { return nil }
        return (key, name, value)
    }
}

/// Why a text did not read as the exposition format.
package struct ParseFailure: Error, Equatable, CustomStringConvertible {
    package let description: String

    init(_ description: String) {
        self.description = description
    }
}

/// What `promtool check metrics` (Debian's `prometheus` package) finds in `text`:
/// `""` when it exits 0 and prints nothing, else its status and output; `nil`, with
/// one printed line saying the check was skipped, when promtool is not installed.
package func promtoolFindings(_ text: String) throws -> String? {
    guard let promtool = ["/usr/bin/promtool", "/usr/local/bin/promtool"].first(where: FileManager.default.isExecutableFile)
    else {
        print("skipped: promtool check metrics (promtool is not installed; Debian package prometheus)")
        return nil
    }
    let result = try runProgram(promtool, ["check", "metrics"], input: Array(text.utf8))
    let printed = result.stdout + result.stderr
    return result.status == 0 && printed.isEmpty ? "" : "exit \(result.status): \(printed)"
}
