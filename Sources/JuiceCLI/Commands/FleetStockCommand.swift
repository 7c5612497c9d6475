import FleetConfiguration
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import JuiceMakerCore
#if canImport(NATSPlugin)
import NATSPlugin
#endif

/// `juice fleet stock [--json]`: machines × fruits, each machine's latest stock as the
/// stream holds it (the last `stock.changed` per machine and fruit), with its age.
struct FleetStockCommand: JuiceCommand {
    static let configuration = CommandConfiguration(
        commandName: "stock",
        abstract: LocalizedText(
            "Show each machine's latest stock, read from the stream, and how old it is.",
            ko: "각 기계의 최신 재고와 그 나이를 스트림에서 읽어 보여 줍니다."),
        options: [FleetGroup.natsOption])
    static let needs = CommandNeeds.plugins

    let nats: String?

    init(_ invocation: Invocation) throws(CLIError) {
        nats = invocation.value("nats")
    }

    func run(_ session: Session) async throws(CLIError) -> ExitCode {
        #if canImport(NATSPlugin)
        let context = session.context
        let reader = try FleetCommandSupport.reader(context, nats: nats)
        let rows: [FleetStockRow]
        do {
            rows = try FleetStockRow.read(reader)
        } catch {
            throw FleetCommandSupport.failure(error)
        }
        let now = Date()
        if context.settings.json {
            context.console.print(
                JSONWriter.compact(
                    .array(
                        rows.map { row in
                            .object([
                                ("machine", .string(row.machine)),
                                ("stock", .object(Fruit.allCases.compactMap { fruit in row.stock[fruit].map { (fruit.id, .integer($0)) } })),
                                ("updated", .string(RFC3339.format(row.updated))),
                                ("ageSeconds", .number(max(0, (now.timeIntervalSince(row.updated) * 1000).rounded() / 1000))),
                            ])
                        })))
            return .success
        }
        let language = context.language
        var table = [
            [Catalog.Fleet.machineHeading(language)] + Fruit.allCases.map { "\($0.emoji) \(Catalog.Results.name($0)(language))" }
                + [Catalog.Fleet.updatedHeading(language)]
        ]
        table += rows.map { row in
            [row.machine] + Fruit.allCases.map { row.stock[$0].map(String.init) ?? "-" }
                + [Catalog.Fleet.age(now.timeIntervalSince(row.updated))(language)]
        }
        if rows.isEmpty {
            context.console.print(Catalog.Fleet.noMachines)
        } else {
            context.console.standardOutput.write(TableLayout.render(table))
        }
        return .success
        #else
        throw FleetCommandSupport.unavailableBuild
        #endif
    }
}

#if canImport(NATSPlugin)
/// One machine's latest stock as the stream holds it.
struct FleetStockRow {
    let machine: String
    var stock: [Fruit: Int]
    var updated: Date

    /// The last `stock.changed` of every machine and fruit.
    static func read(_ reader: FleetCommandSupport.Reader) throws(NATSError) -> [FleetStockRow] {
        let filter = "\(reader.prefix).*.\(Fleet.kindTokens(.stockChanged)).*"
        let subscription = try reader.connection.reader(stream: reader.stream, filter: filter, start: .lastPerSubject)
        defer { subscription.stop() }
        let prefixTokens = reader.prefix.split(separator: ".").count
        var rows: [String: FleetStockRow] = [:]
        while let message = try subscription.next(timeout: 1) {
            let tokens = message.subject.split(separator: ".")
            if tokens.count > prefixTokens, let envelope = try? CloudEventFormat.decode(message.text),
                case let .stockChanged(fruit, _, to, _) = envelope.event
            {
                let machine = String(tokens[prefixTokens])
                var row = rows[machine] ?? FleetStockRow(machine: machine, stock: [:], updated: envelope.time)
                row.stock[fruit] = to
                row.updated = max(row.updated, envelope.time)
                rows[machine] = row
            }
            if message.metadata?.pending == 0 { break }
        }
        return rows.values.sorted { $0.machine < $1.machine }
    }
}
#endif
