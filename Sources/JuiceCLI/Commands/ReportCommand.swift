#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import JuiceMakerCore
import JuiceMakerPluginKit
import SQLiteStore

/// `juice report [--since 24h|7d|30d|DATE] [--by hour|day|week] [--at TIME] [--svg FILE] [--ascii]`:
/// sales per juice, lost sales, fruit consumed per period, and the stock with how long
/// each fruit lasts at the window's rate. `--json` prints the same figures as one object.
struct ReportCommand: JuiceCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: LocalizedText(
            "Show sales, lost sales, fruit consumed and how long the stock lasts.",
            ko: "판매, 놓친 판매, 쓴 과일과 재고가 얼마나 갈지 보여 줍니다."),
        subcommands: [PicklistCommand.self])

    struct Options: CommandOptions {
        let since: Option<String?>
        let by: Option<Bucket?>
        let at: Option<String?>
        let svg: Option<String?>
        let ascii: Option<Bool>
        init(_ options: inout OptionList) {
            since = options.reportSince()
            by = options.value(
                "by", value: "hour|day|week", completion: .words(Bucket.allCases.map(\.rawValue)),
                help: LocalizedText(
                    "Bucket the fruit consumed by hour, day or week (default: by the window's length).",
                    ko: "쓴 과일을 시간, 일, 주 단위로 묶습니다 (기본값: 기간 길이에 따라).")
            ) { text, _ throws(CLIError) in
                guard let bucket = Bucket(rawValue: text) else { throw CLIError(.badValue, Catalog.Report.badBucket(text)) }
                return bucket
            }
            at = options.reportAt()
            svg = options.text(
                "svg", value: "file",
                help: LocalizedText(
                    "Also write the charts as one standalone SVG file (- prints only the SVG, on standard output).",
                    ko: "차트를 독립된 SVG 파일 하나로도 씁니다 (-는 SVG만 표준 출력에 씁니다)."))
            ascii = options.flag(
                "ascii",
                help: LocalizedText(
                    "Draw bars with ASCII (#) instead of Unicode blocks.",
                    ko: "막대를 유니코드 블록 대신 ASCII(#)로 그립니다."))
        }
    }

    private let window: ReportWindow
    private let svgPath: String?
    private let ascii: Bool

    init(_ invocation: Invocation) throws(CLIError) {
        let options = Options(invocation)
        window = try ReportWindow(since: options.since.value, at: options.at.value, by: options.by, now: Self.now())
        svgPath = try options.svg.value
        ascii = try options.ascii.value
        // `-` is standard output, which then holds the SVG alone: not with `--json`.
        if svgPath == "-", try GlobalOptions(invocation).json.value { throw .usage(Catalog.Report.svgAndJSON, invocation.path) }
    }

    func run(_ session: Session) throws(CLIError) -> ExitCode {
        let context = session.context
        let figures = try Self.figures(session, window: window)
        let language = context.language
        if svgPath == "-" {
            context.console.standardOutput.write(ReportSVG.render(figures, language: language))
            return .success
        }
        if let svgPath {
            let svg = ReportSVG.render(figures, language: language)
            do {
                try AtomicFile.write(Array(svg.utf8), to: svgPath, gate: context.files)
            } catch {
                throw CLIError(.storeIO, Catalog.Report.svgUnwritable(svgPath, error.reason))
            }
        }
        if context.settings.json {
            context.console.print(JSONWriter.compact(ReportJSON.report(figures)))
        } else if let svgPath {
            if !context.settings.quiet { context.console.print(Catalog.Report.svgWritten(svgPath)) }
        } else {
            let output = context.console.standardOutput
            let style = ReportStyle(
                width: ReportStyle.width(environment: context.environment, isTerminal: output.isTerminal),
                ascii: ascii, color: context.settings.colorAllowed && output.isTerminal)
            output.write(ReportText.render(figures, style: style, language: language))
        }
        return .success
    }

    static func now() -> Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)) }

    /// The figures of `window`: from the SQLite store's projection, or folded from the
    /// journal for a store without one.
    static func figures(_ session: Session, window: ReportWindow) throws(CLIError) -> ReportFigures {
        let store = try session.journal()
        do {
            if let sqlite = store as? SQLiteStore {
                return ReportFigures(try sqlite.report(firstHour: window.firstHour, lastHour: window.lastHour), window: window)
            }
            var events: [EventEnvelope] = []
            while true {
                let page = try store.events(after: events.last?.sequence ?? 0, limit: 1000)
                events += page
                if page.count < 1000 { break }
            }
            let snapshot = ReportSnapshot.folding(events, stock: try store.stock(), firstHour: window.firstHour, lastHour: window.lastHour)
            return ReportFigures(snapshot, window: window)
        } catch {
            throw CLIError(.storeIO, Catalog.Errors.store(error))
        }
    }
}

/// `juice report picklist [--cover 2d | --target N] [--since W]`: how much of each fruit
/// to bring, to last `--cover` at the window's rate (default 1d), or to reach `--target`.
struct PicklistCommand: JuiceCommand {
    static let configuration = CommandConfiguration(
        commandName: "picklist",
        abstract: LocalizedText(
            "List how much of each fruit to bring from the storeroom.",
            ko: "창고에서 가져올 과일과 개수를 보여 줍니다."))

    struct Options: CommandOptions {
        let cover: Option<ReportDuration?>
        let target: Option<Int?>
        let since: Option<String?>
        let at: Option<String?>
        init(_ options: inout OptionList) {
            cover = options.value(
                "cover", value: "12h|2d|1w",
                help: LocalizedText(
                    "Bring enough for this long at the recent rate: 12h, 2d, 1w (default 1d).",
                    ko: "최근 속도로 이 기간 동안 쓸 만큼 가져옵니다: 12h, 2d, 1w (기본값 1d).")
            ) { text, _ throws(CLIError) in try ReportDuration.cover(text) }
            target = options.integer(
                "target", value: "n", in: 1...1_000_000,
                help: LocalizedText(
                    "Bring enough to reach this many of each fruit instead.",
                    ko: "대신 과일마다 이 개수가 되도록 가져옵니다."),
                belowMinimum: Catalog.Report.targetOutOfRange)
            since = options.reportSince()
            at = options.reportAt()
        }
    }

    private let window: ReportWindow
    private let mode: PicklistMode

    init(_ invocation: Invocation) throws(CLIError) {
        let options = Options(invocation)
        if options.cover.text != nil, options.target.text != nil { throw .usage(Catalog.Report.coverAndTarget, invocation.path) }
        if let target = try options.target.value {
            mode = .target(target)
        } else if let cover = try options.cover.value {
            mode = .cover(cover)
        } else {
            mode = .cover(try ReportDuration.cover("1d"))
        }
        window = try ReportWindow(since: options.since.value, at: options.at.value, by: nil, now: ReportCommand.now())
    }

    func run(_ session: Session) throws(CLIError) -> ExitCode {
        let context = session.context
        let figures = try ReportCommand.figures(session, window: window)
        if context.settings.json {
            context.console.print(JSONWriter.compact(ReportJSON.picklist(figures, mode: mode)))
            return .success
        }
        let language = context.language
        let heading: LocalizedText =
            switch mode {
            case .cover(let duration): Catalog.Report.picklistCover(duration.text, window.rate)
            case .target(let target): Catalog.Report.picklistTarget(target)
            }
        let items = figures.picklist(mode).filter { $0.bring > 0 }
        guard !items.isEmpty else {
            context.console.print(heading(language) + "\n  " + Catalog.Report.nothingToBring(language))
            return .success
        }
        var rows = [[String]]()
        rows += items.map {
            ["  \($0.fruit.emoji) \(Catalog.Results.name($0.fruit)(language))", Catalog.Report.bring($0.bring, have: $0.have)(language)]
        }
        context.console.standardOutput.write(heading(language) + "\n" + TableLayout.render(rows))
        return .success
    }
}

/// The options `juice report` and `juice report picklist` share.
extension OptionList {
    /// `--since`: the window, read by `ReportWindow`.
    mutating func reportSince() -> Option<String?> {
        text(
            "since", value: "24h|7d|30d|date",
            help: LocalizedText(
                "The window: 24h, 7d, 30d (hours, days, weeks: 2w) or a date 2026-11-01 (UTC); default 7d.",
                ko: "기간: 24h, 7d, 30d (시간, 일, 주: 2w) 또는 날짜 2026-11-01 (UTC). 기본값 7d."))
    }

    /// `--at`: the window's end, read by `ReportWindow`.
    mutating func reportAt() -> Option<String?> {
        text(
            "at", value: "time",
            help: LocalizedText(
                "Report as of the end of this hour (2026-11-21T09:00:00Z or a date) instead of now.",
                ko: "지금 대신 이 시각이 속한 시간의 끝을 기준으로 봅니다 (2026-11-21T09:00:00Z 또는 날짜)."))
    }
}
