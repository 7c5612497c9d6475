/// Whether the stream a reader reads is still the one it found, looked at now and then
/// (`juice fleet watch`: an ordered reader whose stream is deleted just sees nothing
/// more). It says, in one line each, that the stream is gone (at once, then every
/// `StreamAbsence.reportInterval` while it stays gone), and what is there when a stream of that
/// name is back: the same one, or a new one to read from its first message.
package final class StreamPresence {
    /// What a look found that the reader acts on.
    package enum Change: Equatable {
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
    private var absence = StreamAbsence()

    /// - Parameter summary: the stream as the reader found it.
    package init(connection: NATSConnection, summary: StreamSummary, report: @escaping (String) -> Void) {
        self.connection = connection
        name = summary.name
        identity = summary.identity
        self.report = report
    }

    /// Looks, when the last look is `checkInterval` old: call it whenever a read came
    /// back empty. A server that does not answer is no news (the connection says so).
    package func lookIfDue() -> Change? {
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
            guard let gone = absence.gone(at: now) else { return nil }
            let still = gone < Self.checkInterval ? "" : " (gone for \(DurableConsumer.seconds(gone)))"
            report(
                "stream \(name) was deleted on the server\(still); nothing to show until a machine creates it again (said again every minute while it is gone)"
            )
            return nil
        }
        let away = absence.ended(at: now).map { " (the stream was gone for \(DurableConsumer.seconds($0)))" } ?? ""
        guard summary.identity != identity else {
            if !away.isEmpty { report("stream \(name) is there again, the same stream\(away)") }
            return nil
        }
        identity = summary.identity
        report("stream \(name) is a new stream, created \(summary.identity)\(away): showing it from its first message")
        return .newStream(summary)
    }
}

/// A stream gone from the server, as a reader says it: since when, and when that was
/// last said. Said at once, then each `reportInterval` while it stays gone
/// (`DurableConsumer`, `StreamPresence`).
struct StreamAbsence: Sendable {
    /// How often a stream that stays gone is said again.
    static let reportInterval = Duration.seconds(60)

    private var since: ContinuousClock.Instant?
    private var said: ContinuousClock.Instant?

    /// Notes the stream gone at `now`; how long it has been gone when that is to be said
    /// now, else `nil`.
    mutating func gone(at now: ContinuousClock.Instant) -> Duration? {
        let since = since ?? now
        self.since = since
        if let said, now - said < Self.reportInterval { return nil }
        said = now
        return now - since
    }

    /// How long it has been gone, if it is.
    func away(at now: ContinuousClock.Instant) -> Duration? { since.map { now - $0 } }

    /// The stream is there: how long it was gone, if it was; forgotten from then on.
    mutating func ended(at now: ContinuousClock.Instant) -> Duration? {
        defer { self = StreamAbsence() }
        return away(at: now)
    }
}
