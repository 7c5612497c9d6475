import Foundation
import JuiceTestSupport
import Testing

/// The example in the article "The report" (`Sources/JuiceCLI/JuiceCLI.docc/TheReport.md`)
/// is what `juice report` prints for a fixed history: the test writes that history, runs
/// the command the article shows, and compares.
@Suite(.tags(.process), .notInUnitRun, .offPool) struct ReportArticleExampleTests {
    static let command = ["report", "--since", "24h", "--at", "2026-11-21T06:00:00Z"]

    /// The text between the article's report markers, without the command line.
    private func articleBlock() throws -> String {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let article = try String(
            contentsOf: root.appendingPathComponent("Sources/JuiceCLI/JuiceCLI.docc/TheReport.md"), encoding: .utf8)
        let begin = try #require(article.range(of: "<!-- report-example:begin -->\n```text\n$ juice " + Self.command.joined(separator: " ") + "\n"))
        let end = try #require(article.range(of: "```\n<!-- report-example:end -->", range: begin.upperBound..<article.endIndex))
        return String(article[begin.upperBound..<end.lowerBound])
    }

    /// 40 seeded changes from 2026-11-20 06:00 UTC, at most 45 minutes apart.
    static func fixedHistory(_ sandbox: JuiceSandbox) throws {
        try ReportHistory.write(to: sandbox.storePath, seed: 2026, changes: 40, start: 1_795_240_800_000 - 86_400_000, maximumStep: 45 * 60_000)
    }

    @Test func theArticleExampleIsWhatTheCommandPrints() throws {
        let sandbox = try JuiceSandbox()
        try Self.fixedHistory(sandbox)
        let run = try sandbox.run(Self.command, environment: ["COLUMNS": "100"])
        #expect(run.status == 0, "\(run.stderr)")
        let block = try articleBlock()
        #expect(run.stdout == block, "the report article's example is stale; the command prints:\n\(run.stdout)")
    }
}
