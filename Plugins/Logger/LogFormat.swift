import JuiceMakerCore
import JuicePrimitives

/// How the logger writes one event: one line, without its newline.
package enum LogFormat: String, Sendable, CaseIterable {
    /// One stable, grep-able line per event, fields separated by single spaces:
    ///
    /// ```
    /// <time> <level> <kind> seq=<n> <fields> change=<uuid> id=<uuid>
    /// 2026-11-21T04:29:21.559Z notice juiceMade seq=1 juice=mango-kiwi count=1 consumed=kiwi:1,mango:2 change=… id=…
    /// 2026-11-21T04:29:21.559Z info stockChanged seq=2 fruit=kiwi from=10 to=9 reason=order change=… id=…
    /// 2026-11-21T04:29:22.004Z warning orderFailed seq=4 juice=strawberry count=1 shortages=strawberry:6 change=… id=…
    /// ```
    /// `time` is RFC 3339 UTC with milliseconds; `seq` is the journal position;
    /// fruit and juice ids are the stable kebab-case ids; amounts are
    /// `fruit:amount` pairs joined by commas, in menu order.
    case text
    /// One CloudEvents 1.0 structured JSON object per line (`CloudEventFormat`),
    /// the same text webhook bodies carry.
    case json

    /// The line for `envelope` in this format.
    package func line(for envelope: EventEnvelope) -> String {
        switch self {
        case .json:
            return CloudEventFormat.encode(envelope)
        case .text:
            let kind = envelope.event.kind
            var line = RFC3339.format(envelope.time)
            line += " " + LogLevel(of: kind).rawValue + " " + kind.rawValue + " seq=" + String(envelope.sequence)
            switch envelope.event {
            case let .stockChanged(fruit, from, to, reason):
                line += " fruit=" + fruit.id + " from=" + String(from) + " to=" + String(to) + " reason=" + reason.rawValue
            case let .juiceMade(juice, count, consumed):
                line += " juice=" + juice.id + " count=" + String(count) + " consumed=" + Self.amounts(consumed)
            case let .orderFailed(juice, count, shortages):
                line += " juice=" + juice.id + " count=" + String(count) + " shortages=" + Self.amounts(shortages)
            }
            line += " change=" + envelope.changeID.description + " id=" + envelope.id.description
            return line
        }
    }

    private static func amounts(_ amounts: FruitAmounts) -> String {
        amounts.nonZero.map { $0.fruit.id + ":" + String($0.amount) }.joined(separator: ",")
    }
}
