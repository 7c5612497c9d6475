import Foundation
import JuiceMakerPluginKit
import JuiceTestSupport
import Testing
@testable import JuiceCLI

/// `juice report` at its edges: an empty journal, a quiet window, bad values, fruits
/// never used, the SVG file, terminal width and colour.
@Suite(.tags(.process), .notInUnitRun, .offPool) struct ReportEdgeTests {
    private static let hour: Int64 = 3_600_000

    @Test func anEmptyJournalIsAnEmptyReportWithAHelpfulLine() throws {
        let sandbox = try JuiceSandbox()
        let text = try sandbox.run(["report"])
        #expect(text.status == 0)
        #expect(text.stderr.isEmpty)
        #expect(text.stdout.contains("Nothing to report yet: the journal is empty."))
        #expect(!text.stdout.contains("∞"))
        #expect(text.stdout.contains("10 left, not used in the last 7d: lasts at least that long"))
        let korean = try sandbox.run(["report", "--lang", "ko"])
        #expect(korean.stdout.contains("아직 보고할 것이 없습니다."))
        let object = try #require(try sandbox.run(["report", "--json"]).json() as? [String: Any])
        let sales = try #require(object["sales"] as? [String: Any])
        #expect((sales["cups"] as? Int) == 0)
        let stock = try #require(object["stock"] as? [[String: Any]])
        #expect(stock.allSatisfy { $0["hoursLeft"] is NSNull && ($0["perHour"] as? Double) == 0 })
    }

    @Test func aWindowWithNoOrdersSaysSo() throws {
        let sandbox = try JuiceSandbox()
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        try ReportHistory.write(to: sandbox.storePath, seed: 5, changes: 20, start: now - 40 * 24 * Self.hour, maximumStep: Self.hour)
        let run = try sandbox.run(["report", "--since", "24h"])
        #expect(run.status == 0)
        #expect(run.stdout.contains("No orders since "))
        #expect(run.stdout.contains("try a longer window, e.g. --since 30d."))
        #expect(!run.stdout.contains("Sales per juice"))
        // The same store over a longer window has sales.
        #expect(try sandbox.run(["report", "--since", "60d"]).stdout.contains("Sales per juice"))
    }

    @Test(arguments: [
        (["report", "--since", "3x"], "'--since 3x' is not a duration or a date; write e.g. 24h, 7d, 2w or 2026-11-01."),
        (["report", "--since", "0h"], "'--since 0h' is out of range; use from 1h up to 3650d."),
        (["report", "--since", "2026-02-30"], "'--since 2026-02-30' is not a duration or a date"),
        (["report", "--since", "2999-01-01"], "'--since 2999-01-01' is in the future"),
        (["report", "--by", "month"], "'--by month' is not a period; use hour, day or week."),
        (["report", "--at", "yesterday"], "'--at yesterday' is not a time"),
        (["report", "picklist", "--cover", "2 days"], "'--cover 2 days' is not a duration"),
        (["report", "picklist", "--target", "0"], "'--target' must be from 1 to 1,000,000, found 0."),
        (["report", "picklist", "--target", "99999999999999999999"], "'99999999999999999999' for '--target' is above 1,000,000"),
        (["report", "--since", "99999999999999999999d"], "'--since 99999999999999999999d' is out of range"),
        (["report", "--since", "7d\u{1B}[2J"], "'--since 7d\\e[2J' is not a duration or a date"),
    ])
    func badValuesExit65WithOneLineAndTouchNothing(arguments: [String], message: String) throws {
        let sandbox = try JuiceSandbox()
        let run = try sandbox.run(arguments)
        #expect(run.status == 65, "\(arguments): \(run.stderr)")
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.hasPrefix("Error: "))
        #expect(run.stderr.contains(message), "\(run.stderr)")
        #expect(run.stderr.split(separator: "\n").count == 1)
        #expect(!run.stderr.contains("\u{1B}"))
        #expect(sandbox.storeBytes() == nil, "a refused report creates no store")
    }

    @Test func coverAndTargetTogetherIsAUsageError() throws {
        let sandbox = try JuiceSandbox()
        let run = try sandbox.run(["report", "picklist", "--cover", "2d", "--target", "5"])
        #expect(run.status == 64)
        #expect(run.stderr.contains("give one of them"))
    }

    @Test func theSVGIsStandaloneAndEscaped() throws {
        let sandbox = try JuiceSandbox()
        #expect(try sandbox.run(["order", "mango-kiwi"]).status == 0)
        #expect(try sandbox.run(["order", "strawberry", "--count", "3"]).status == 1)
        let path = sandbox.root + "/report.svg"
        let run = try sandbox.run(["report", "--svg", path, "--lang", "ko"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("차트를"))
        let svg = String(decoding: try #require(FileManager.default.contents(atPath: path)), as: UTF8.self)
        #expect(svg.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\""))
        #expect(svg.hasSuffix("</svg>\n"))
        for forbidden in ["<script", "href", "url(", "<image", "<foreignObject", "@import"] {
            #expect(!svg.contains(forbidden), "\(forbidden)")
        }
        #expect(svg.contains("망고키위쥬스"))
        #expect(svg.contains("쥬스별 판매"))
        #expect(svg.contains("딸기 부족"))
        // Every `<` starts a tag and every `&` an entity: the text is escaped.
        #expect(ReportSVG.escaped("a<b>&\"'\u{1}") == "a&lt;b&gt;&amp;&quot;&apos;")
        let unwritable = try sandbox.run(["report", "--svg", sandbox.root + "/missing/dir/report.svg"])
        #expect(unwritable.status == 74)
        #expect(unwritable.stderr.contains("cannot write the SVG to"))
    }

    @Test(arguments: ["60", "80", "132"])
    func linesFitTheTerminalWidth(columns: String) throws {
        let sandbox = try JuiceSandbox()
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        try ReportHistory.write(to: sandbox.storePath, seed: 11, changes: 80, start: now - 2 * 24 * Self.hour, maximumStep: Self.hour)
        for arguments in [["report", "--since", "24h"], ["report", "--since", "7d", "--ascii"], ["report", "--lang", "ko", "--since", "2d"]] {
            let run = try sandbox.run(arguments, environment: ["COLUMNS": columns])
            #expect(run.status == 0)
            #expect(!run.stdout.contains("\u{1B}"), "no colour when stdout is not a terminal")
            let lines = run.stdout.split(separator: "\n")
            #expect(run.stdout.contains("Sales per juice") || run.stdout.contains("쥬스별 판매"), "a window with sales")
            for line in lines {
                #expect(TerminalText.width(of: String(line)) <= Int(columns) ?? 0, "\(arguments) at \(columns): \(line)")
            }
            if arguments.contains("--ascii") {
                #expect(!run.stdout.contains("█") && run.stdout.contains("#"))
            } else {
                #expect(run.stdout.contains("█"))
            }
        }
    }

    @Test func colourOnlyWhenAllowed() {
        let colour = ReportStyle(width: 80, ascii: false, color: true)
        let plain = ReportStyle(width: 80, ascii: false, color: false)
        #expect(colour.paint("kiwi", "31") == "\u{1B}[31mkiwi\u{1B}[0m")
        #expect(plain.paint("kiwi", "31") == "kiwi")
        #expect(ReportStyle.width(environment: ["COLUMNS": "100"], isTerminal: false) == 100)
        #expect(ReportStyle.width(environment: [:], isTerminal: false) == 80)
        #expect(plain.bar(8, of: 8, cells: 4) == "████")
        #expect(plain.bar(1, of: 16, cells: 4) == "▎")
        #expect(plain.bar(0, of: 16, cells: 4) == "")
    }
}
