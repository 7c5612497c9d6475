import FleetConfiguration
import JuiceMakerCore
import JuiceMakerPluginKit
import FleetReaders
import NATSClient

/// `juice fleet metrics`: the fleet's figures in Prometheus' text exposition format,
/// read from every message the stream retains, under the names `juice metrics` uses
/// with a `machine` label first (`MetricsExposition.render(fleet:)`): per machine, the
/// juices made, failed orders and fruit consumed (counters), its stock after its last
/// `stock.changed` (gauge), and its events. A message that fails `FleetEvent`'s checks
/// is skipped with one escaped stderr line and counted nowhere; an event stored twice
/// (a resend after the duplicate window) is counted once. Exit 0, skipped messages or
/// not. The text is the output with or without `--json`.
struct FleetMetricsCommand: FleetReaderCommand {
    static let configuration = CommandConfiguration(
        commandName: "metrics",
        abstract: LocalizedText(
            "Print every machine's figures, read from the stream, in Prometheus' text format with a machine label.",
            ko: "모든 기계의 수치를 스트림에서 읽어 machine 레이블을 붙인 Prometheus 텍스트 형식으로 출력합니다."))

    let nats: String?

    func show(_ reader: FleetCommandSupport.Reader, context: CommandContext) throws(NATSError) {
        let reportSkipped = FleetCommandSupport.reportSkipped(context)
        var machines: [String: FleetMachineFigures] = [:]
        var seen: [String: Set<EventID>] = [:]
        try reader.each("\(reader.prefix).>", from: .all) { message in
            switch FleetEvent.read(message, prefix: reader.prefix, maxBytes: reader.maxMessageBytes) {
            case .success(let event):
                guard seen[event.machine, default: []].insert(event.envelope.id).inserted else { return }
                machines[event.machine, default: FleetMachineFigures(machine: event.machine)].add(event.envelope.event)
            case .failure(let skipped): reportSkipped(skipped)
            }
        }
        let figures = machines.values.sorted { $0.machine < $1.machine }
        context.console.standardOutput.write(MetricsExposition.render(fleet: figures))
    }
}
