import Foundation
import JuiceTestSupport
import Testing

/// What starts a child process, by name: none of it may appear in a `.unit` suite.
/// Outside the suite below, which would otherwise name them all.
private let processStarters = [
    "JuiceSandbox", "runProgram(", "Program(", "Probe.start", "NATSServerProcess", "processExitsWith", "promtoolFindings",
    "Process()", "posix_spawn", "fork(",
]

/// What starts `nats-server` or connects through libnats, by name (outside the suite
/// below, as the list above).
private let natsStarters = ["NATSServerProcess", "NATSConnection("]

/// Every suite says what kind it is (`TestKinds.swift`), so that `JUICE_TESTS=unit`
/// runs exactly the suites that need nothing but the test process: read off the test
/// sources, as `swift format` lays them out (a top-level type starts at the first
/// column, its attributes on the lines before it, and its closing brace at the first
/// column too).
@Suite(.tags(.unit)) struct TestKindTests {
    /// A type declared at the top level of a test file, or an extension of one.
    struct Declaration {
        let place: String
        /// The test target and the type's name: two targets may each have a type of a name.
        let name: String
        let isExtension: Bool
        /// Its attributes (`@Suite(…)`), joined.
        let attributes: String
        /// Its text, from the declaration to its closing brace.
        let body: String
    }

    /// `Tests/`, found from this file's path.
    static let tests = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()

    static let kinds: Set<String> = ["unit", "process", "nats", "slow"]

    /// Every top-level declaration of every test target's sources (not the shared
    /// library's, nor the fuzzers').
    static func declarations() throws -> [Declaration] {
        let targets = try FileManager.default.contentsOfDirectory(atPath: tests.path).filter { $0 != "Support" && $0 != "Fuzz" }
        var found: [Declaration] = []
        for target in targets.sorted() {
            let directory = tests.appendingPathComponent(target)
            guard let files = FileManager.default.enumerator(atPath: directory.path) else { continue }
            for case let file as String in files where file.hasSuffix(".swift") {
                let text = try String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8)
                found += declarations(in: text, file: target + "/" + file)
            }
        }
        return found
    }

    /// The top-level declarations of one file's `text`.
    static func declarations(in text: String, file: String) -> [Declaration] {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var found: [Declaration] = []
        var attributes: [String] = []
        var index = 0
        while index < lines.count {
            let line = lines[index]
            if line.hasPrefix("@") {
                // An attribute's arguments may go on for lines (balanced parentheses); the
                // declaration may follow it on its last line.
                var attribute = line
                var depth = balance(line)
                while depth > 0, index + 1 < lines.count {
                    index += 1
                    attribute += "\n" + lines[index]
                    depth += balance(lines[index])
                }
                attributes.append(attribute)
                if let (name, isExtension) = declaredType(String(afterAttribute(attribute))) {
                    index = append(name, isExtension, from: index, lines, file, &attributes, &found)
                } else {
                    index += 1
                }
            } else if let (name, isExtension) = declaredType(line) {
                index = append(name, isExtension, from: index, lines, file, &attributes, &found)
            } else {
                if !line.hasPrefix("//") { attributes = [] }
                index += 1
            }
        }
        return found
    }

    /// Adds the declaration that starts at `start`; the index after its closing brace.
    private static func append(
        _ name: String, _ isExtension: Bool, from start: Int, _ lines: [String], _ file: String, _ attributes: inout [String],
        _ found: inout [Declaration]
    ) -> Int {
        var end = start
        while end < lines.count, !(end > start && lines[end].hasPrefix("}")), !lines[start].hasSuffix("{}") { end += 1 }
        found.append(
            Declaration(
                place: "\(file):\(start + 1)", name: (file.split(separator: "/").first.map(String.init) ?? "") + "." + name, isExtension: isExtension,
                attributes: attributes.joined(separator: " "),
                body: lines[start...min(end, lines.count - 1)].joined(separator: "\n")))
        attributes = []
        return end + 1
    }

    /// The type a top-level line declares (`struct X`, `extension X`, after any
    /// modifiers), or `nil`.
    static func declaredType(_ line: String) -> (name: String, isExtension: Bool)? {
        var words = line.split(whereSeparator: { $0 == " " || $0 == ":" || $0 == "{" || $0 == "<" }).map(String.init)[...]
        let modifiers: Set<String> = ["public", "package", "internal", "private", "fileprivate", "final"]
        while let first = words.first, modifiers.contains(first) { words = words.dropFirst() }
        guard let keyword = words.first, ["struct", "class", "enum", "actor", "extension"].contains(keyword),
            let name = words.dropFirst().first
        else { return nil }
        return (name, keyword == "extension")
    }

    /// What follows an attribute (`@Suite(…) struct X {` gives `struct X {`): after
    /// its balanced arguments, or after its name when it has none.
    static func afterAttribute(_ attribute: String) -> Substring {
        var depth = 0
        var inString = false
        var previous: Character = " "
        var index = attribute.startIndex
        while index < attribute.endIndex {
            let character = attribute[index]
            index = attribute.index(after: index)
            if character == "\"", previous != "\\" { inString.toggle() }
            previous = character
            guard !inString else { continue }
            if character == "(" { depth += 1 }
            if character == ")" {
                depth -= 1
                if depth == 0 { return attribute[index...].drop { $0 == " " } }
            }
            if depth == 0, character == " " { return attribute[index...] }
        }
        return ""
    }

    /// Opening minus closing parentheses on `line`, outside string literals.
    static func balance(_ line: String) -> Int {
        var depth = 0
        var inString = false
        var previous: Character = " "
        for character in line {
            if character == "\"", previous != "\\" { inString.toggle() }
            if !inString, character == "(" { depth += 1 }
            if !inString, character == ")" { depth -= 1 }
            previous = character
        }
        return depth
    }

    /// The tag names of a `@Suite(…)` attribute text (`.tags(.process, .slow)`).
    static func tags(_ attributes: String) -> [String] {
        guard let start = attributes.range(of: ".tags(") else { return [] }
        let rest = attributes[start.upperBound...]
        guard let end = rest.firstIndex(of: ")") else { return [] }
        return rest[..<end].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: ["."]) }
    }

    @Test func everySuiteCarriesOneKind() throws {
        let suites = try Self.declarations().filter { $0.attributes.contains("@Suite") }
        #expect(suites.count > 100, "the scan found the suites: \(suites.count)")
        for suite in suites {
            let tags = Self.tags(suite.attributes)
            let skips = suite.attributes.components(separatedBy: ".notInUnitRun").count - 1
            #expect(skips <= 1, "\(suite.place): \(suite.name) carries .notInUnitRun \(skips) times")
            let skipped = skips > 0
            #expect(!tags.isEmpty && Set(tags).isSubset(of: Self.kinds), "\(suite.place): \(suite.name) has no kind: \(tags)")
            if tags.contains("unit") {
                #expect(tags == ["unit"] && !skipped, "\(suite.place): a .unit suite carries no other kind and runs in unit runs")
            } else {
                #expect(skipped, "\(suite.place): \(suite.name) is not .unit, so it carries .notInUnitRun")
            }
        }
    }

    /// A type holding tests without `@Suite` is a suite all the same, one that no kind
    /// would reach; so is a test function outside any type.
    @Test func everyTestIsInASuiteThatSaysItsKind() throws {
        let declarations = try Self.declarations()
        let suites = Set(declarations.filter { $0.attributes.contains("@Suite") }.map(\.name))
        for declaration in declarations where declaration.body.contains("@Test") {
            #expect(suites.contains(declaration.name), "\(declaration.place): \(declaration.name) holds tests but is not a @Suite")
        }
        let files = try FileManager.default.subpathsOfDirectory(atPath: Self.tests.path).filter {
            $0.hasSuffix(".swift") && !$0.hasPrefix("Support/") && !$0.hasPrefix("Fuzz/")
        }
        for file in files {
            let text = try String(contentsOf: Self.tests.appendingPathComponent(file), encoding: .utf8)
            #expect(!text.contains("\n@Test"), "\(file): a test outside a suite")
        }
    }

    /// One rule for what needs NATS: a suite that starts `nats-server` or connects through
    /// libnats (here, or in an extension of it) carries `.requiresNATS`, which checks both
    /// at run time and skips with one line naming what is missing, and the `.nats` kind;
    /// no suite decides for itself. (Starting the test server also records an issue in
    /// a test that runs without the trait.)
    @Test func everySuiteThatTalksToNATSCarriesTheTrait() throws {
        let declarations = try Self.declarations()
        let suites = Dictionary(declarations.filter { $0.attributes.contains("@Suite") }.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        var talking = 0
        for declaration in declarations {
            let uses = natsStarters.filter { Self.names(declaration.body, $0) }
            let suite = suites[declaration.name]
            let attributes = suite?.attributes ?? ""
            if !uses.isEmpty, declaration.body.contains("@Test") {
                talking += 1
                #expect(
                    attributes.contains(".requiresNATS") && Self.tags(attributes).contains("nats"),
                    "\(declaration.place): \(declaration.name) uses \(uses) but its suite does not carry .requiresNATS and .nats")
            }
            if declaration.attributes.contains("@Suite") {
                #expect(
                    Self.tags(attributes).contains("nats") == attributes.contains(".requiresNATS"),
                    "\(declaration.place): \(declaration.name): the .nats kind and .requiresNATS go together")
                #expect(
                    !attributes.contains("nats-server") && !attributes.contains("libnats"),
                    "\(declaration.place): \(declaration.name) decides for itself whether NATS is here; use .requiresNATS")
            }
        }
        #expect(talking > 10, "the scan found the suites that talk to NATS: \(talking)")
    }

    /// What starts a child process appears in no `.unit` suite (nor in an extension of one).
    @Test func unitSuitesStartNoProcess() throws {
        let declarations = try Self.declarations()
        let units = Set(declarations.filter { Self.tags($0.attributes) == ["unit"] }.map(\.name))
        for declaration in declarations where units.contains(declaration.name) {
            let starters = processStarters.filter { Self.names(declaration.body, $0) }
            #expect(starters.isEmpty, "\(declaration.place): the .unit suite \(declaration.name) starts a process: \(starters)")
        }
    }

    /// Whether `text` names `starter` (not as the end of a longer name).
    static func names(_ text: String, _ starter: String) -> Bool {
        var rest = text[...]
        while let found = rest.range(of: starter) {
            guard found.lowerBound > text.startIndex else { return true }
            let before = text[text.index(before: found.lowerBound)]
            if !(before.isLetter || before.isNumber || before == "_") { return true }
            rest = rest[found.upperBound...]
        }
        return false
    }

    @Test func theSelectionIsOneThatExists() {
        #expect(
            TestSelection.known.contains(TestSelection.requested),
            "JUICE_TESTS=\(TestSelection.requested) selects nothing: use JUICE_TESTS=unit, or leave it unset for every suite")
    }

    /// The scan itself reads declarations as `swift format` writes them.
    @Test func theScanReadsAttributesAndBodies() {
        let text = """
            import Testing

            /// A doc comment.
            @Suite(
                "A (named) suite",
                .tags(.process, .slow), .notInUnitRun)
            struct Named {
                @Test func one() {}
            }

            extension Named {
                @Test func two() {}
            }

            struct Bare {
                @Test func three() {}
            }
            """
        let found = Self.declarations(in: text, file: "X.swift")
        #expect(found.map(\.name) == ["X.swift.Named", "X.swift.Named", "X.swift.Bare"])
        #expect(Self.names("Widget()", "Widget()") && Self.names("let w = Widget()", "Widget()"))
        #expect(!Self.names("func makeWidget()", "Widget()"))
        #expect(Self.tags(found[0].attributes) == ["process", "slow"])
        #expect(found[0].attributes.contains(".notInUnitRun"))
        #expect(found[1].isExtension && found[1].attributes.isEmpty)
        #expect(found[2].attributes.isEmpty && found[2].body.contains("three"))
        let inline = Self.declarations(in: "@Suite(.tags(.unit)) struct Inline {\n    @Test func four() {}\n}", file: "Y.swift")
        #expect(inline.map(\.name) == ["Y.swift.Inline"] && Self.tags(inline[0].attributes) == ["unit"])
        #expect(Self.declarations(in: "@Suite(\"A class of its own (named)\")\nstruct Real {\n}", file: "Z.swift").map(\.name) == ["Z.swift.Real"])
    }
}
