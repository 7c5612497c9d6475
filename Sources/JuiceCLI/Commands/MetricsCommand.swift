import JuiceMakerCore
import JuiceMakerPluginKit

/// `juice metrics`: the store's figures in Prometheus' text exposition format, the
/// same text the `metrics` subscriber writes for node_exporter's textfile collector
/// (`MetricsExposition`): juices made, failed orders and fruit consumed over the whole
/// journal (counters), the stock, each durable subscriber's lag, dead letters and last
/// success, the journal's length and the store's size. Read now, so it also shows
/// deliveries made since the last change. The text is the output with or without
/// `--json` (it is already a format for programs).
struct MetricsCommand: JuiceCommand {
    static let configuration = CommandConfiguration(
        commandName: "metrics",
        abstract: LocalizedText(
            "Print the store's figures in Prometheus' text format (what the metrics subscriber writes).",
            ko: "저장소의 수치를 Prometheus 텍스트 형식으로 출력합니다 (metrics 구독자가 쓰는 내용)."))

    init(_ invocation: Invocation) throws(CLIError) {}

    func run(_ session: Session) throws(CLIError) -> ExitCode {
        let store = try session.journal()
        guard let totals = store as? any JournalTotalsReading else {
            throw CLIError(.storeIO, LocalizedText("this store keeps no totals to print.", ko: "이 저장소에는 출력할 합계가 없습니다."))
        }
        let figures: MetricsFigures
        do {
            figures = try MetricsFigures.read(totals: totals, journal: store)
        } catch {
            throw CLIError(.storeIO, Catalog.Errors.store(error))
        }
        session.context.console.standardOutput.write(MetricsExposition.render(figures))
        return .success
    }
}
