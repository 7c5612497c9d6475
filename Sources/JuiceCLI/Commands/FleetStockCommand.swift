import FleetConfiguration
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import JuiceJSON
import JuiceMakerCore
import JuiceMakerPluginKit
import JuicePrimitives
import FleetReaders
import NATSClient

/// `juice fleet stock [--json]`: machines × fruits, each machine's latest stock as the
/// stream holds it (the last `stock.changed` per machine and fruit that passes
/// `FleetEvent`'s checks), with its age by the stream's clock. A skipped message is one
/// escaped line on stderr and changes nothing; exit 0 all the same.
struct FleetStockCommand: FleetReaderCommand {
    static let configuration = CommandConfiguration(
        commandName: "stock",
        abstract: LocalizedText(
            "Show each machine's latest stock, read from the stream, and how old it is.",
            ko: "각 기계의 최신 재고와 그 나이를 스트림에서 읽어 보여 줍니다."))

    let nats: String?

    func show(_ reader: FleetCommandSupport.Reader, context: CommandContext) throws(NATSError) {
        let language = context.language
        let rows = try FleetStockRow.read(reader, skipped: FleetCommandSupport.reportSkipped(context))
        let now = Date()
        if context.settings.json {
            context.console.print(
                JSONWriter.compact(
                    .array(
                        rows.map { row in
                            var members: [(key: String, value: JSONValue)] = [
                                ("machine", .string(row.machine)),
                                ("stock", .object(Fruit.allCases.compactMap { fruit in row.stock[fruit].map { (fruit.id, .integer($0)) } })),
                                ("updated", .string(RFC3339.format(row.updated))),
                                ("ageSeconds", .number(max(0, (now.timeIntervalSince(row.updated) * 1000).rounded() / 1000))),
                            ]
                            if row.clockAhead > 0 { members.append(("clockAheadSeconds", .number(row.clockAhead.rounded()))) }
                            return .object(members)
                        })))
            return
        }
        var table = [
            [Catalog.Fleet.machineHeading(language)] + Fruit.allCases.map { "\($0.emoji) \(Catalog.Results.name($0)(language))" }
                + [Catalog.Fleet.updatedHeading(language)]
        ]
        table += rows.map { row in
            var age = Catalog.Fleet.age(now.timeIntervalSince(row.updated))(language)
            if row.clockAhead > 0 { age += " " + Catalog.Fleet.clockAhead(row.clockAhead)(language) }
            return [row.machine] + Fruit.allCases.map { row.stock[$0].map(String.init) ?? "-" } + [age]
        }
        if rows.isEmpty {
            context.console.print(Catalog.Fleet.noMachines)
        } else {
            context.console.standardOutput.write(TableLayout.render(table))
        }
        if let note = Catalog.Fleet.retention(.init(name: reader.stream, maxAge: reader.summary.maxAge, maxBytes: reader.summary.maxBytes)) {
            context.console.print(note)
        }
    }
}

/// One machine's latest stock as the stream holds it.
struct FleetStockRow {
    let machine: String
    var stock: [Fruit: Int]
    /// When the stream stored the newest of them (the server's clock).
    var updated: Date
    /// How far ahead of the stream's clock the machine's clock ran, at most, in seconds
    /// (its events' `time` after the stream stored them); 0 when not by more than a minute.
    var clockAhead: Double = 0

    /// A machine's `time` this far after the stream stored the event is a clock ahead.
    static let skewTolerance = 60.0

    /// The last `stock.changed` of every machine and fruit that passes `FleetEvent`'s
    /// checks; `skipped` hears each message that does not. When a subject's last message
    /// is skipped, that subject's earlier messages are read for its last good one.
    static func read(_ reader: FleetCommandSupport.Reader, skipped: (FleetEvent.Skipped) -> Void) throws(NATSError) -> [FleetStockRow] {
        let filter = "\(reader.prefix).*.\(Fleet.kindTokens(.stockChanged)).*"
        var latest: [String: FleetEvent] = [:]
        var retry: [String] = []
        var said: Set<UInt64> = []
        try reader.each(filter, from: .lastPerSubject) { message in
            switch FleetEvent.read(message, prefix: reader.prefix, maxBytes: reader.maxMessageBytes) {
            case .success(let event): latest[message.subject] = event
            case .failure(let skip):
                if said.insert(skip.sequence).inserted { skipped(skip) }
                if isStockSubject(message.subject, prefix: reader.prefix) { retry.append(message.subject) }
            }
        }
        for subject in retry {
            try reader.each(subject, from: .all) { message in
                switch FleetEvent.read(message, prefix: reader.prefix, maxBytes: reader.maxMessageBytes) {
                case .success(let event): latest[subject] = event
                case .failure(let skip): if said.insert(skip.sequence).inserted { skipped(skip) }
                }
            }
        }
        var rows: [String: FleetStockRow] = [:]
        for event in latest.values {
            guard case let .stockChanged(fruit, _, to, _) = event.envelope.event else { continue }
            let stored = event.stored ?? event.envelope.time
            var row = rows[event.machine] ?? FleetStockRow(machine: event.machine, stock: [:], updated: stored)
            row.stock[fruit] = to
            row.updated = max(row.updated, stored)
            let ahead = event.envelope.time.timeIntervalSince(stored)
            if ahead > skewTolerance { row.clockAhead = max(row.clockAhead, ahead) }
            rows[event.machine] = row
        }
        return rows.values.sorted { $0.machine < $1.machine }
    }

    /// Whether `subject` is one a machine's stock change goes to (a machine name, a fruit).
    private static func isStockSubject(_ subject: String, prefix: String) -> Bool {
        let rest = subject.dropFirst(prefix.count + 1).split(separator: ".", omittingEmptySubsequences: false)
        guard subject.hasPrefix(prefix + "."), rest.count == 4 else { return false }
        return Fleet.isMachineName(String(rest[0])) && "\(rest[1]).\(rest[2])" == Fleet.kindTokens(.stockChanged)
            && Fruit(rawValue: String(rest[3])) != nil
    }
}
