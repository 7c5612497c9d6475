import Foundation
import JuiceTestSupport
import Testing

/// The section "A plugin in a package of its own" of the article Writing a plugin walks
/// through `Tests/Fixtures/ThirdPartyPlugin`, which CI builds and runs (`.ci/third-party`):
/// each Swift block of that section is in one of the fixture's files, word for word, and
/// the destination stays within the 80 lines the section promises. The fixture itself is
/// another package, which this suite does not build.
@Suite(.tags(.unit)) struct ThirdPartyArticleTests {
    private static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    private static let fixture = "Tests/Fixtures/ThirdPartyPlugin/"
    private static let files = [
        "Package.swift", "Sources/JSONLinesPlugin/JSONLinesFile.swift", "Sources/JuiceJSONL/main.swift",
    ]

    private static func read(_ path: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }

    @Test func eachSwiftBlockOfTheSectionIsInTheFixture() throws {
        let article = try Self.read("Sources/JuiceMakerPluginKit/JuiceMakerPluginKit.docc/WritingAPlugin.md")
        let start = try #require(article.range(of: "\n## A plugin in a package of its own\n"))
        let section = article[start.upperBound...]
        let end = section.range(of: "\n## ")?.lowerBound ?? section.endIndex
        let blocks = Self.swiftBlocks(in: String(section[..<end]))
        let sources = try Self.files.map { try Self.read(Self.fixture + $0) }
        #expect(blocks.count == 4)
        for block in blocks {
            #expect(sources.contains { $0.contains(block) }, "not in the fixture, word for word:\n\(block)")
        }
    }

    @Test func theDestinationStaysWithin80Lines() throws {
        let text = try Self.read(Self.fixture + "Sources/JSONLinesPlugin/JSONLinesFile.swift")
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).count - (text.hasSuffix("\n") ? 1 : 0)
        #expect(lines <= 80, "\(lines) lines")
        // The package's `juice` is the built-in plugins and its own, through the CLI's one entry.
        let main = try Self.read(Self.fixture + "Sources/JuiceJSONL/main.swift")
        #expect(main.contains("await JuiceProcess.main(plugins: JuiceProcess.builtInPlugins + [JSONLinesFile.declaration])"))
    }

    /// The bodies of the ```swift blocks of `markdown`, without their fences.
    private static func swiftBlocks(in markdown: String) -> [String] {
        var blocks: [String] = []
        var current: [Substring]?
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            if current == nil, line == "```swift" {
                current = []
            } else if let body = current, line == "```" {
                blocks.append(body.joined(separator: "\n"))
                current = nil
            } else {
                current?.append(line)
            }
        }
        return blocks
    }
}
