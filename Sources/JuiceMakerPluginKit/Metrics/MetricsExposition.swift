import JuiceMakerCore

/// `MetricsFigures` in Prometheus' text exposition format (version 0.0.4), which
/// node_exporter's textfile collector reads: one `# HELP` and `# TYPE` line per
/// family, `snake_case` names with the unit last, `_total` on counters, and label
/// values escaped (backslash, double quote, newline).
///
/// Counters are sums over the whole journal, so they never go down when a process
/// restarts. Every juice and fruit of the menu has a sample, 0 until it has one, so a
/// rate over a new series starts from a known value.
public enum MetricsExposition {
    /// The whole text, ending in a newline.
    public static func render(_ figures: MetricsFigures) -> String {
        let totals = figures.totals
        var text = ""
        let juices = ids(Juice.allCases.map(\.id), totals.juicesMade, totals.ordersFailed)
        let fruits = ids(Fruit.allCases.map(\.id), totals.fruitConsumed)
        family(
            &text, "juicemaker_juices_made_total", .counter, "Juices made, in cups, over the whole journal.",
            juices.map { (label("juice", $0), "\(totals.juicesMade[$0] ?? 0)") })
        family(
            &text, "juicemaker_orders_failed_total", .counter, "Orders refused for lack of fruit, over the whole journal.",
            juices.map { (label("juice", $0), "\(totals.ordersFailed[$0] ?? 0)") })
        family(
            &text, "juicemaker_fruit_consumed_total", .counter, "Fruit used by the juices made, over the whole journal.",
            fruits.map { (label("fruit", $0), "\(totals.fruitConsumed[$0] ?? 0)") })
        family(
            &text, "juicemaker_fruit_in_stock", .gauge, "Fruit in stock.",
            Fruit.allCases.map { (label("fruit", $0.id), "\(totals.stock[$0])") })
        let subscribers = figures.subscribers
        family(
            &text, "juicemaker_subscriber_lag_events", .gauge, "Journal events after a durable subscriber's cursor, not handled yet.",
            subscribers.map { (label("subscriber", $0.name), "\($0.lag)") })
        family(
            &text, "juicemaker_subscriber_dead_letters", .gauge, "Events a durable subscriber gave up on, kept as dead letters.",
            subscribers.map { (label("subscriber", $0.name), "\($0.deadLetters)") })
        family(
            &text, "juicemaker_subscriber_last_success_timestamp_seconds", .gauge,
            "When a durable subscriber last delivered an event, as a Unix time.",
            subscribers.compactMap { subscriber in subscriber.lastSuccess.map { (label("subscriber", subscriber.name), number($0)) } })
        family(&text, "juicemaker_journal_events_total", .counter, "Events in the journal: its length.", [("", "\(totals.events)")])
        if let bytes = totals.storeBytes {
            family(
                &text, "juicemaker_store_size_bytes", .gauge, "Bytes the store's database and write-ahead log take on disk.",
                [("", "\(bytes)")])
        }
        return text
    }

    private enum Kind: String {
        case counter, gauge
    }

    /// One family: HELP, TYPE and its samples (`labels` already in braces, or empty).
    /// A family without samples is left out (a TYPE with nothing under it says nothing).
    private static func family(_ text: inout String, _ name: String, _ kind: Kind, _ help: String, _ samples: [(String, String)]) {
        guard !samples.isEmpty else { return }
        text += "# HELP \(name) \(escapeHelp(help))\n# TYPE \(name) \(kind.rawValue)\n"
        for (labels, value) in samples { text += "\(name)\(labels) \(value)\n" }
    }

    /// The menu's ids in menu order, then any other id the journal holds, sorted.
    private static func ids(_ known: [String], _ counted: [String: Int]...) -> [String] {
        let others = Set(counted.flatMap(\.keys)).subtracting(known).sorted()
        return known + others
    }

    private static func label(_ name: String, _ value: String) -> String {
        "{\(name)=\"\(escapeLabelValue(value))\"}"
    }

    /// A Unix time with its fraction; Go's `ParseFloat` (Prometheus') reads Swift's shortest form.
    private static func number(_ value: Double) -> String {
        value.isFinite ? "\(value)" : "NaN"
    }

    /// A label value as the format quotes it: `\` as `\\`, `"` as `\"`, a line feed as `\n`.
    public static func escapeLabelValue(_ value: String) -> String { escape(value, quotes: true) }

    /// HELP text as the format writes it: the same, with `"` left as it is.
    static func escapeHelp(_ text: String) -> String { escape(text, quotes: false) }

    private static func escape(_ text: String, quotes: Bool) -> String {
        var escaped = ""
        for character in text.unicodeScalars {
            switch character {
            case "\\": escaped += "\\\\"
            case "\"" where quotes: escaped += "\\\""
            case "\n": escaped += "\\n"
            default: escaped.unicodeScalars.append(character)
            }
        }
        return escaped
    }
}
