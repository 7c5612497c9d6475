/// Whether the stream a reader reads is still the one it found, looked at now and then
/// (`juice fleet watch`: an ordered reader whose stream is deleted just sees nothing
/// more). It says, in one line each, that the stream is gone (at once, then every
/// `goneReportInterval` while it stays gone), and what is there when a stream of that
/// name is back: the same one, or a new one to read from its first message.
public final class StreamPresence {
    /// What a look found that the reader acts on.
    public enum Change: Equatable {
        /// A stream of the name that is not the one read: read it from its first message.
        case newStream(StreamSummary)
    }

    /// Between looks.
    static let checkInterval = DurableConsumer.checkInterval

    private let connection: NATSConnection
    private let name: String
    private let report: (String) -> Void
    private var identity: StreamIdentity
    private var lastLook = ContinuousClock.now
    private var goneSince: ContinuousClock.Instant?
    private var goneSaid: ContinuousClock.Instant?

    /// - Parameter summary: the stream as the reader found it.
    public init(connection: NATSConnection, summary: StreamSummary, report: @escaping (String) -> Void) {
        self.connection = connection
        name = summary.name
        identity = summary.identity
        self.report = report
    }

    /// Looks, when the last look is `checkInterval` old: call it whenever a read came
    /// back empty. A server that does not answer is no news (the connection says so).
    public func lookIfDue() -> Change? {
        let now = ContinuousClock.now
        guard now - lastLook >= Self.checkInterval else { return nil }
        lastLook = now
        let summary: StreamSummary?
        do {
            summary = try connection.stream(name)
        } catch {
            return nil
        }
        guard let summary else {
            let since = goneSince ?? now
            goneSince = since
            if let said = goneSaid, now - said < DurableConsumer.goneReportInterval { return nil }
            goneSaid = now
            let still = now - since < Self.checkInterval ? "" : " (gone for \(DurableConsumer.seconds(now - since)))"
            report(
                "stream \(name) was deleted on the server\(still); nothing to show until a machine creates it again (said again every minute while it is gone)"
            )
            return nil
        }
        let away = goneSince.map { " (the stream was gone for \(DurableConsumer.seconds(now - $0)))" } ?? ""
        goneSince = nil
        goneSaid = nil
        guard summary.identity != identity else {
            if !away.isEmpty { report("stream \(name) is there again, the same stream\(away)") }
            return nil
        }
        identity = summary.identity
        report("stream \(name) is a new stream, created \(summary.identity)\(away): showing it from its first message")
        return .newStream(summary)
    }
}
