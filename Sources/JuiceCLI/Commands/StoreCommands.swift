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
import JuiceJSON
import JuiceMakerCore
import JuiceMakerPluginKit
import SQLiteStore

// `juice store check | backup FILE | recover --to FILE`: the store file's own
// operations. Each command is declared here; their longer words are in `Catalog.StoreCommands`.

/// `juice store`: a group that needs a subcommand.
enum StoreGroup: CommandDeclaration {
    static let configuration = CommandConfiguration(
        commandName: "store",
        abstract: LocalizedText("Check, back up, recover or compact the store file.", ko: "저장소 파일을 검사하거나 백업하거나 복구하거나 압축합니다."),
        subcommands: [StoreCheckCommand.self, StoreBackupCommand.self, StoreRecoverCommand.self, StoreCompactCommand.self])
}

/// `juice store check`: SQLite's integrity check over the store. Exit 0 when it finds
/// nothing; otherwise the problems on stdout, one line on stderr naming the way out,
/// and exit 74 (the store is marked damaged, so changes are refused from then on).
struct StoreCheckCommand: JuiceCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: LocalizedText(
            "Run SQLite's integrity check over the store; exit 74 when it finds damage.",
            ko: "저장소에 SQLite 무결성 검사를 실행합니다. 손상을 찾으면 74로 끝납니다."))
    static let limit = 20

    init(_ invocation: Invocation) throws(CLIError) {}

    func run(_ session: Session) throws(CLIError) -> ExitCode {
        let context = session.context
        let store = try StoreCommandSupport.store(session)
        let result: StoreCheckResult
        do {
            result = try store.check(limit: Self.limit)
        } catch {
            throw CLIError(.storeIO, Catalog.Errors.store(error))
        }
        let problems: [String]
        let more: Bool
        switch result {
        case .ok: (problems, more) = ([], false)
        case let .damaged(found, moreFound): (problems, more) = (found, moreFound)
        }
        let history = problems.isEmpty ? try? store.compactionState() : nil
        var okLines = [Catalog.StoreCommands.checkOK(store.path)(context.language)]
        if let history, history.through > 0 { okLines.append(Catalog.StoreCommands.historyStarts(history)(context.language)) }
        // The problems are printed even with --quiet: they are what the exit code is about.
        context.printResult(
            json: .object([
                ("store", .string(store.path)),
                ("ok", .bool(problems.isEmpty)),
                ("problems", .array(problems.map(JSONValue.string))),
                ("more", .bool(more)),
                ("historyStart", history.map { .number(Double($0.historyStart)) } ?? .null),
                ("foldedEvents", history.map { .number(Double($0.deletedEvents)) } ?? .null),
            ]),
            lines: problems.isEmpty ? okLines : Self.shown(problems),
            shownWhenQuiet: !problems.isEmpty)
        guard problems.isEmpty else {
            throw CLIError(.storeIO, Catalog.StoreCommands.checkDamaged(store.path, problems: problems.count, more: more))
        }
        return .success
    }

    /// SQLite's problem reports as lines to show: a report may run over several lines,
    /// and names in it (a table's, an index's) come from the file, so each line has its
    /// control characters escaped.
    static func shown(_ problems: [String]) -> [String] {
        problems.flatMap { $0.split(separator: "\n", omittingEmptySubsequences: true).map { TerminalText.escaped(String($0)) } }
    }
}

/// `juice store backup FILE`: the store as it is at one moment, copied to a new file
/// (0600) with SQLite's online backup API while other processes go on; never
/// overwrites a file.
struct StoreBackupCommand: JuiceCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: LocalizedText(
            "Copy the store, as it is at one moment, to a new file; safe while other processes write.",
            ko: "저장소를 한 시점의 모습 그대로 새 파일에 복사합니다. 다른 프로세스가 쓰는 중에도 안전합니다."))

    struct Options: CommandOptions {
        let file: Argument<String>
        init(_ options: inout OptionList) {
            file = options.argument(
                "file", completion: .files, help: LocalizedText("the new file (it must not exist yet)", ko: "새 파일(아직 없는 파일이어야 합니다)")
            ) { text, path throws(CLIError) in try StoreCommandSupport.target(text, option: "<file>", path: path) }
        }
    }

    let target: String

    init(_ invocation: Invocation) throws(CLIError) {
        target = try Options(invocation).file.value
    }

    func run(_ session: Session) throws(CLIError) -> ExitCode {
        let context = session.context
        let store = try StoreCommandSupport.store(session)
        let result: BackupResult
        do {
            result = try store.backup(to: target)
        } catch {
            if case .markedDamaged = error.reason { throw CLIError(.storeIO, Catalog.StoreCommands.backupRefused(error)) }
            throw CLIError(.storeIO, Catalog.Errors.store(error))
        }
        context.printResult(
            json: .object([
                ("store", .string(store.path)), ("backup", .string(result.path)),
                ("pages", .integer(result.pages)), ("restarts", .integer(result.restarts)),
            ]),
            lines: [Catalog.StoreCommands.backedUp(store.path, to: result.path, pages: result.pages)(context.language)])
        return .success
    }
}

/// `juice store recover --to FILE`: every readable row of the store (however
/// damaged; it is only read) saved into a new store file, then what was saved,
/// what was skipped, and how to put the new file in place. The store is not opened
/// as usual, so a file too damaged to open is recovered as far as it can be read.
struct StoreRecoverCommand: JuiceCommand {
    static let configuration = CommandConfiguration(
        commandName: "recover",
        abstract: LocalizedText(
            "Save every readable row of a damaged store into a new store file.",
            ko: "손상된 저장소에서 읽을 수 있는 모든 행을 새 저장소 파일에 살립니다."))

    struct Options: CommandOptions {
        let to: Option<String>
        init(_ options: inout OptionList) {
            to = options.required(
                "to", value: "file", help: LocalizedText("the new store file (it must not exist yet)", ko: "새 저장소 파일(아직 없는 파일이어야 합니다)")
            ) { file, _ in file }
        }
    }

    static let needs = CommandNeeds.plugins
    let target: String

    init(_ invocation: Invocation) throws(CLIError) {
        target = try Options(invocation).to.value
    }

    func run(_ session: Session) throws(CLIError) -> ExitCode {
        let context = session.context
        guard case let .file(path, _) = context.location else {
            throw CLIError.usage(Catalog.StoreCommands.needsAFile, context.invocation.path)
        }
        let report: RecoveryReport
        do {
            report = try SQLiteStore.recover(from: path, to: target)
        } catch {
            throw CLIError(.storeIO, Catalog.StoreErrors.line(error, recovering: error.path == path))
        }
        context.printResult(
            json: StoreCommandSupport.json(report, from: path),
            lines: Catalog.StoreCommands.recovered(report, from: path).map { $0(context.language) })
        return .success
    }
}

enum StoreCommandSupport {
    /// The session's store as the SQLite store these commands work on: one that
    /// exists, never created here (an empty file is not taken as a new store).
    static func store(_ session: Session) throws(CLIError) -> SQLiteStore {
        if case let .file(path, _) = session.context.location {
            do {
                try SQLiteStore.requireExisting(at: path)
            } catch {
                throw CLIError(.storeIO, Catalog.Errors.store(error))
            }
        }
        guard let store = try session.journal() as? SQLiteStore else {
            throw CLIError.usage(Catalog.StoreCommands.needsAFile, session.context.invocation.path)
        }
        return store
    }

    /// A target file named on the command line: present and not empty.
    static func target(_ value: String?, option: String, path: [CommandSpec]) throws(CLIError) -> String {
        guard let value else { throw CLIError.usage(Catalog.Errors.missingArgument(option), path) }
        guard !value.isEmpty else { throw CLIError.usage(Catalog.Errors.emptyValue(option, isPath: true), path) }
        return value
    }

    static func json(_ report: RecoveryReport, from store: String) -> JSONValue {
        .object([
            ("store", .string(store)), ("recovered", .string(report.path)),
            ("events", .integer(report.events)), ("lastSequence", .number(Double(report.lastSequence))),
            ("skippedEvents", .integer(report.skippedEvents)),
            (
                "skippedSequences",
                .array(
                    report.skippedSequences.map { range in
                        .array([.number(Double(range.lowerBound)), .number(Double(range.upperBound))])
                    })
            ),
            (
                "stock",
                .object(
                    report.stock.map { entry in
                        let source: JSONValue =
                            switch entry.source {
                            case .stockTable: .string("stock")
                            case let .journal(sequence): .number(Double(sequence))
                            case .missing: .null
                            }
                        return (entry.fruit.id, .object([("quantity", .integer(entry.quantity)), ("from", source)]))
                    })
            ),
            ("cursors", .integer(report.cursors)), ("deadLetters", .integer(report.deadLetters)),
            ("retryStates", .integer(report.retryStates)),
            ("incompleteTables", .array(report.incompleteTables.map(JSONValue.string))),
            (
                "cutShort",
                report.cutShort.map { .object([("size", .number(Double($0.size))), ("expected", .number(Double($0.expected)))]) } ?? .null
            ),
            ("unreadableRows", .object(report.unreadableRows.sorted { $0.key < $1.key }.map { ($0.key, .integer($0.value)) })),
            (
                "lostEvents",
                .array(
                    report.lostEvents.map { lost in
                        .object([
                            ("subscriber", .string(lost.subscriber)),
                            ("sequences", .array([.number(Double(lost.sequences.lowerBound)), .number(Double(lost.sequences.upperBound))])),
                        ])
                    })
            ),
            (
                "headerIdentity",
                report.headerIdentity.map { identity in
                    .object([("applicationID", .integer(Int(identity.applicationID))), ("schemaVersion", .integer(Int(identity.schemaVersion)))])
                } ?? .null
            ),
            (
                "headerCorrection",
                report.headerCorrection.map { correction in
                    .object([
                        ("headerPageSize", .integer(correction.headerPageSize)), ("headerReserved", .integer(correction.headerReserved)),
                        ("pageSize", .integer(correction.pageSize)), ("reserved", .integer(correction.reserved)),
                    ])
                } ?? .null
            ),
        ])
    }
}

extension Catalog {
    /// The words of `juice store …`.
    enum StoreCommands {
        static let needsAFile = T(
            "'juice store' works on a store file; --in-memory has none.",
            ko: "'juice store'는 저장소 파일에 씁니다. --in-memory에는 파일이 없습니다.")

        static func checkOK(_ path: String) -> T {
            let path = Catalog.echo(path: path)
            return T(
                "store \(path): ok (SQLite's integrity check found nothing wrong)",
                ko: "저장소 \(path): 이상 없음(SQLite 무결성 검사에서 아무 문제도 찾지 못했습니다)")
        }

        static func historyStarts(_ state: CompactionState) -> T {
            T(
                "history starts at sequence \(state.historyStart): \(state.deletedEvents) older events are folded into the report's rollups",
                ko: "기록은 순번 \(state.historyStart)부터입니다. 그보다 오래된 이벤트 \(state.deletedEvents)개는 보고서 롤업에 접혀 있습니다")
        }

        static func checkDamaged(_ path: String, problems: Int, more: Bool) -> T {
            let path = Catalog.echo(path: path)
            let count = "\(problems)\(more ? "+" : "")"
            return T(
                "store \(path) is damaged: SQLite's integrity check found \(count) \(EnglishCount.choose(more ? 2 : problems, "problem", "problems")) (listed above), and changes are refused from now on; save what is readable with 'juice store recover --to NEW.db', then, with no juice running, mv NEW.db \(path)",
                ko:
                    "저장소 \(path)이(가) 손상되었습니다. SQLite 무결성 검사에서 문제 \(count)개를 찾았고(위 목록), 이제부터 변경은 거부됩니다. 'juice store recover --to NEW.db'로 읽을 수 있는 것을 살린 뒤, juice가 하나도 실행되지 않을 때 mv NEW.db \(path) 하세요"
            )
        }

        static func backupRefused(_ error: StoreError) -> T {
            let why = Catalog.StoreErrors.reason(error.reason)
            let fix = Catalog.StoreErrors.fix(error.reason, store: error.path)
            let path = Catalog.echo(path: error.path)
            return T(
                "store \(path) not backed up: \(why.english); a copy would carry the damage, so \(fix.english)",
                ko: "저장소 \(path)을(를) 백업하지 않았습니다: \(why.korean). 사본에도 손상이 그대로 옮겨지므로, \(fix.korean)")
        }

        static func backedUp(_ path: String, to target: String, pages: Int) -> T {
            let (path, target) = (Catalog.echo(path: path), Catalog.echo(path: target))
            return T(
                "store \(path) backed up to \(target) (\(EnglishCount.of(pages, "page")), as it was at one moment)",
                ko: "저장소 \(path)을(를) \(target)에 백업했습니다(\(pages)페이지, 한 시점의 모습 그대로)")
        }

        /// What a recovery saved and skipped, and how to put the new file in place.
        static func recovered(_ report: RecoveryReport, from path: String) -> [T] {
            let (path, target) = (Catalog.echo(path: path), Catalog.echo(path: report.path))
            var lines: [T] = []
            let ranges =
                report.skippedSequences.map { $0.count == 1 ? "\($0.lowerBound)" : "\($0.lowerBound)–\($0.upperBound)" }
                .joined(separator: ", ") + (report.skippedSequences.map(\.count).reduce(0, +) < report.skippedEvents ? ", …" : "")
            lines.append(
                report.skippedEvents == 0 && report.cutShort == nil
                    ? T(
                        "recovered \(path) into \(target): all \(EnglishCount.of(report.events, "event")) saved (through sequence \(report.lastSequence))",
                        ko: "\(path)을(를) \(target)(으)로 복구했습니다: 이벤트 \(report.events)개를 모두 살렸습니다(순번 \(report.lastSequence)까지)")
                    : report.skippedEvents == 0
                        ? T(
                            "recovered \(path) into \(target): \(EnglishCount.of(report.events, "event")) saved (through sequence \(report.lastSequence))",
                            ko: "\(path)을(를) \(target)(으)로 복구했습니다: 이벤트 \(report.events)개를 살렸습니다(순번 \(report.lastSequence)까지)")
                        : T(
                            "recovered \(path) into \(target): \(EnglishCount.of(report.events, "event")) saved, \(report.skippedEvents) could not be read (sequences \(ranges)) of \(report.lastSequence)",
                            ko:
                                "\(path)을(를) \(target)(으)로 복구했습니다: 이벤트 \(report.lastSequence)개 중 \(report.events)개를 살렸고 \(report.skippedEvents)개는 읽지 못했습니다(순번 \(ranges))"
                        ))
            if let identity = report.headerIdentity {
                let id = "0x" + String(identity.applicationID, radix: 16)
                lines.append(
                    T(
                        "the file's header names application id \(id) and schema version \(identity.schemaVersion), not a JuiceMaker store's, but its pages hold a store's tables: it was read as one",
                        ko:
                            "파일 헤더에는 application id \(id), 스키마 버전 \(identity.schemaVersion)(으)로 JuiceMaker 저장소가 아니라고 되어 있지만, 페이지에 저장소의 테이블이 있어 저장소로 읽었습니다"
                    ))
            }
            if let correction = report.headerCorrection {
                lines.append(
                    T(
                        "the file's header was wrong: it says pages of \(correction.headerPageSize) bytes (\(correction.headerReserved) reserved), its pages are \(correction.pageSize) bytes (\(correction.reserved) reserved); they were read as such",
                        ko:
                            "파일 헤더가 틀렸습니다: 페이지가 \(correction.headerPageSize)바이트(예약 \(correction.headerReserved))라고 하지만 실제 페이지는 \(correction.pageSize)바이트(예약 \(correction.reserved))입니다. 실제대로 읽었습니다"
                    ))
            }
            if !report.unreadableRows.isEmpty {
                let counts = report.unreadableRows.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
                lines.append(
                    T(
                        "rows read but damaged, not saved: \(counts)",
                        ko: "읽었지만 손상되어 살리지 않은 행: \(counts)"))
            }
            for lost in report.lostEvents {
                let name = Catalog.echo(lost.subscriber)
                let range = lost.sequences.count == 1 ? "\(lost.sequences.lowerBound)" : "\(lost.sequences.lowerBound)–\(lost.sequences.upperBound)"
                lines.append(
                    T(
                        "subscriber \(name) had not been sent events \(range), and they are gone: it will never get them (juice subscribers shows this until 'juice subscribers acknowledge' is run for it)",
                        ko:
                            "구독자 \(name)은(는) 이벤트 \(range)을(를) 아직 받지 못했는데 사라졌습니다. 앞으로도 받지 못합니다('juice subscribers acknowledge'를 실행할 때까지 juice subscribers에 나옵니다)"
                    ))
            }
            if let (size, expected) = report.cutShort {
                lines.append(
                    T(
                        "the file is cut short (\(size) of the \(EnglishCount.of(expected, "byte")) its header says): events after sequence \(report.lastSequence) may have been in the missing part",
                        ko: "파일이 잘렸습니다(헤더에는 \(expected)바이트인데 \(size)바이트뿐입니다). 순번 \(report.lastSequence) 뒤의 이벤트가 잘린 부분에 있었을 수 있습니다"))
            }
            let english = report.stock.map { entry -> String in
                switch entry.source {
                case .stockTable: "\(entry.fruit.id) \(entry.quantity)"
                case let .journal(sequence): "\(entry.fruit.id) \(entry.quantity) (its row was unreadable: from event \(sequence))"
                case .missing: "\(entry.fruit.id) 0 (not found: restock it)"
                }
            }
            let korean = report.stock.map { entry -> String in
                switch entry.source {
                case .stockTable: "\(entry.fruit.koreanName) \(entry.quantity)"
                case let .journal(sequence): "\(entry.fruit.koreanName) \(entry.quantity)(행을 읽지 못해 이벤트 \(sequence)에서 가져옴)"
                case .missing: "\(entry.fruit.koreanName) 0(찾지 못함: 다시 채우세요)"
                }
            }
            lines.append(T("stock: " + english.joined(separator: ", "), ko: "재고: " + korean.joined(separator: ", ")))
            lines.append(
                T(
                    "delivery: \(EnglishCount.of(report.cursors, "cursor")), \(EnglishCount.of(report.deadLetters, "dead letter")), "
                        + "\(EnglishCount.of(report.retryStates, "retry state")) saved"
                        + (report.incompleteTables.isEmpty
                            ? "" : "; some rows of \(report.incompleteTables.joined(separator: ", ")) could not be read"),
                    ko: "전달: 커서 \(report.cursors)개, 배달 못 한 이벤트 \(report.deadLetters)개, 재시도 상태 \(report.retryStates)개를 살렸습니다"
                        + (report.incompleteTables.isEmpty ? "" : ". \(report.incompleteTables.joined(separator: ", "))의 일부 행은 읽지 못했습니다")))
            lines.append(
                T(
                    "to use it: stop every juice, then mv \(target) \(path) (the damage mark applies to the old file only)",
                    ko: "사용하려면: juice를 모두 멈춘 뒤 mv \(target) \(path) 하세요(손상 표시는 옛 파일에만 해당합니다)"))
            return lines
        }
    }
}
