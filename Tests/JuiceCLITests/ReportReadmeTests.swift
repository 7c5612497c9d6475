import Foundation
import JuiceTestSupport
import Testing

/// The README's "Report" example is what `juice report` prints for a fixed history: the
/// test writes that history, runs the command the README shows, and compares.
@Suite(.tags(.process), .notInUnitRun) struct ReportReadmeTests {
    static let command = ["report", "--since", "24h", "--at", "2026-11-21T06:00:00Z"]

    /// The text between the README's report markers, without the command line.
    private func readmeBlock() throws -> String {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let begin = try #require(readme.range(of: "<!-- report-example:begin -->\n```text\n$ juice " + Self.command.joined(separator: " ") + "\n"))
        let end = try #require(readme.range(of: "```\n<!-- report-example:end -->", range: begin.upperBound..<readme.endIndex))
        return String(readme[begin.upperBound..<end.lowerBound])
    }

    /// 40 seeded changes from 2026-11-20 06:00 UTC, at most 45 minutes apart.
    static func fixedHistory(_ sandbox: JuiceSandbox) throws {
        try ReportHistory.write(to: sandbox.storePath, seed: 2026, changes: 40, start: 1_795_240_800_000 - 86_400_000, maximumStep: 45 * 60_000)
    }

    @Test func theReadmeExampleIsWhatTheCommandPrints() throws {
        let sandbox = try JuiceSandbox()
        try Self.fixedHistory(sandbox)
        let run = try sandbox.run(Self.command, environment: ["COLUMNS": "100"])
        #expect(run.status == 0, "\(run.stderr)")
        let block = try readmeBlock()
        #expect(run.stdout == block, "the README's report example is stale; the command prints:\n\(run.stdout)")
    }
}
