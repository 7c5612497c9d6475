#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import JuiceJSON
import JuiceMakerCore
import JuicePrimitives
import SQLiteStore

/// `juice store compact [--retention 400d]`: folds the events older than the retention
/// that nothing still needs into the report's rollups and deletes them, in short write
/// transactions, then gives the space back. Without a retention (the option or the
/// config's `store.retention`) it refuses with exit 78 and changes nothing.
struct StoreCompactCommand: JuiceCommand {
    static let configuration = CommandConfiguration(
        commandName: "compact",
        abstract: LocalizedText(
            "Fold events older than store.retention into the report's rollups, delete them, give the space back.",
            ko: "store.retention보다 오래된 이벤트를 보고서 롤업에 접어 넣고 지운 뒤 공간을 돌려줍니다."))

    struct Options: CommandOptions {
        /// In days.
        let retention: Option<Int?>
        let rewrite: Option<Bool>
        init(_ options: inout OptionList) {
            retention = options.value(
                "retention", value: "days",
                help: LocalizedText(
                    "How long to keep events (400d, 60w); default: the config's store.retention.",
                    ko: "이벤트를 얼마나 보관할지(400d, 60w). 기본값: 설정의 store.retention.")
            ) { text, _ throws(CLIError) in
                guard let days = ConfigKeys.retentionDays(text) else { throw CLIError(.badValue, Catalog.StoreCommands.badRetention(text)) }
                return days
            }
            rewrite = options.flag(
                "rewrite",
                help: LocalizedText(
                    "Once, for a store an older juice created: rewrite the file so compaction gives space back (orders wait until it ends).",
                    ko: "이전 juice가 만든 저장소에 한 번: 압축이 공간을 돌려주도록 파일을 다시 씁니다(끝날 때까지 주문이 기다립니다)."))
        }
    }

    let retentionDays: Int?
    let rewrite: Bool

    init(_ invocation: Invocation) throws(CLIError) {
        let options = Options(invocation)
        retentionDays = try options.retention.value
        rewrite = try options.rewrite.value
    }

    func run(_ session: Session) throws(CLIError) -> ExitCode {
        let context = session.context
        guard let days = retentionDays ?? context.config.retentionDays else {
            throw CLIError(.config, Catalog.StoreCommands.noRetention)
        }
        let store = try StoreCommandSupport.store(session)
        var result = try Self.compact(store, days: days, session: session)
        var rewritten = false
        if rewrite, !result.givesSpaceBack {
            let pages: (pagesBefore: Int64, pagesAfter: Int64)
            do {
                pages = try store.rewriteKeepingFreePagesApart()
            } catch {
                throw CLIError(.storeIO, Catalog.Errors.store(error))
            }
            rewritten = true
            result.givesSpaceBack = true
            result.freedPages += Int(pages.pagesBefore - pages.pagesAfter)
        }
        context.printResult(
            json: .object([
                ("store", .string(store.path)), ("retentionDays", .integer(days)),
                ("deletedEvents", .integer(result.deletedEvents)), ("historyStart", .number(Double(result.historyStart))),
                ("stoppedBy", Self.json(result.limit)), ("transactions", .integer(result.batches)),
                ("longestTransactionMilliseconds", .number(result.longestBatchMilliseconds)),
                ("freedPages", .integer(result.freedPages)), ("givesSpaceBack", .bool(result.givesSpaceBack)),
                ("rewritten", .bool(rewritten)),
            ]),
            lines: Catalog.StoreCommands.compacted(result, store: store.path, days: days).map { $0(context.language) })
        return .success
    }

    /// Compacts `store` keeping `days` days, held back by every durable subscriber the
    /// config names (also one that has no cursor yet).
    static func compact(_ store: SQLiteStore, days: Int, session: Session) throws(CLIError) -> CompactionResult {
        let subscribers = session.builtPlugins.filter { $0.durable != nil }.map(\.entry.name)
        let cutoff = Date(timeIntervalSinceNow: -Double(days) * 86_400)
        do {
            return try store.compact(before: cutoff, subscribers: subscribers)
        } catch {
            throw CLIError(.storeIO, Catalog.Errors.store(error))
        }
    }

    static func json(_ limit: CompactionResult.Limit) -> JSONValue {
        switch limit {
        case .retention: .object([("reason", .string("retention"))])
        case .newestEvent: .object([("reason", .string("newestEvent"))])
        case .empty: .object([("reason", .string("empty"))])
        case let .subscriber(name, cursor):
            .object([("reason", .string("subscriber")), ("subscriber", .string(name)), ("sequence", .number(Double(cursor)))])
        case let .deadLetter(name, sequence):
            .object([("reason", .string("deadLetter")), ("subscriber", .string(name)), ("sequence", .number(Double(sequence)))])
        case let .retry(name, sequence):
            .object([("reason", .string("retry")), ("subscriber", .string(name)), ("sequence", .number(Double(sequence)))])
        }
    }
}

extension Catalog.StoreCommands {
    static func badRetention(_ text: String) -> LocalizedText {
        let shown = Catalog.echo(text)
        return LocalizedText(
            "--retention \(shown) is not a retention: give days or weeks from 1d to \(ConfigKeys.maximumRetentionDays)d, e.g. --retention 400d",
            ko: "--retention \(shown)은(는) 보관 기간이 아닙니다. 1d부터 \(ConfigKeys.maximumRetentionDays)d까지 일 또는 주로 주세요. 예: --retention 400d")
    }

    static let noRetention = LocalizedText(
        "no retention: the journal keeps every event until store.retention is set in the config (e.g. \"store\": {\"retention\": \"400d\"}) or --retention 400d is given",
        ko: "보관 기간이 없습니다. 설정에 store.retention(예: \"store\": {\"retention\": \"400d\"})을 두거나 --retention 400d를 주기 전에는 모든 이벤트를 보관합니다")

    /// What a compaction did, where history starts, and what held it back.
    static func compacted(_ result: CompactionResult, store path: String, days: Int) -> [LocalizedText] {
        let path = Catalog.echo(path: path)
        var lines = [
            LocalizedText(
                "store \(path): \(EnglishCount.of(result.deletedEvents, "event")) older than \(EnglishCount.of(days, "day")) folded into the report's rollups and deleted "
                    + "(\(EnglishCount.of(result.batches, "transaction")), the longest \(Self.milliseconds(result.longestBatchMilliseconds)) ms); "
                    + "history starts at sequence \(result.historyStart)",
                ko: "저장소 \(path): \(days)일보다 오래된 이벤트 \(result.deletedEvents)개를 보고서 롤업에 접어 넣고 지웠습니다"
                    + "(트랜잭션 \(result.batches)개, 가장 긴 것 \(Self.milliseconds(result.longestBatchMilliseconds))ms). "
                    + "기록은 순번 \(result.historyStart)부터 남아 있습니다")
        ]
        switch result.limit {
        case .retention, .empty: break
        case .newestEvent:
            lines.append(
                LocalizedText(
                    "the newest event is always kept: new events are numbered after it",
                    ko: "가장 새 이벤트는 늘 남깁니다. 새 이벤트의 순번이 그 뒤로 이어집니다"))
        case let .subscriber(name, cursor):
            let name = Catalog.echo(name)
            lines.append(
                LocalizedText(
                    "held back by subscriber \(name) at sequence \(cursor): events it has not been sent are kept",
                    ko: "구독자 \(name)이(가) 순번 \(cursor)에 있어 멈췄습니다. 아직 보내지 않은 이벤트는 남깁니다"))
        case let .deadLetter(name, sequence):
            let name = Catalog.echo(name)
            lines.append(
                LocalizedText(
                    "held back by a dead letter of \(name) at sequence \(sequence): 'juice subscribers retry \(name) --dead-letters' sends it again",
                    ko: "\(name)의 데드 레터(순번 \(sequence)) 때문에 멈췄습니다. 'juice subscribers retry \(name) --dead-letters'로 다시 보냅니다"))
        case let .retry(name, sequence):
            let name = Catalog.echo(name)
            lines.append(
                LocalizedText(
                    "held back by subscriber \(name), still retrying sequence \(sequence)",
                    ko: "구독자 \(name)이(가) 순번 \(sequence)을(를) 아직 다시 시도하고 있어 멈췄습니다"))
        }
        lines.append(
            result.givesSpaceBack
                ? LocalizedText("\(result.freedPages) free pages given back to the file system", ko: "빈 페이지 \(result.freedPages)개를 파일 시스템에 돌려주었습니다")
                : LocalizedText(
                    "this store was created by an older juice: the pages freed are reused by new events, the file does not shrink; "
                        + "'juice store compact --rewrite' rewrites it once (orders wait until it ends), then compaction gives space back",
                    ko: "이전 juice가 만든 저장소입니다. 비운 페이지는 새 이벤트가 다시 쓰고 파일은 줄지 않습니다. "
                        + "'juice store compact --rewrite'로 한 번 다시 쓰면(끝날 때까지 주문이 기다립니다) 그다음부터 압축이 공간을 돌려줍니다"))
        return lines
    }

    private static func milliseconds(_ value: Double) -> String {
        String(Double((value * 10).rounded()) / 10)
    }
}
