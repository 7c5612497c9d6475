import JuiceMakerCore

/// `MetricsFigures` in Prometheus' text exposition format (version 0.0.4), which
/// node_exporter's textfile collector reads: one `# HELP` and `# TYPE` line per
/// family, `snake_case` names with the unit last, `_total` on counters, and label
/// values escaped (backslash, double quote, newline).
///
/// A store's counters are sums over the whole journal, so they never go down when a
/// process restarts (the fleet's, `render(fleet:)`, count what the stream retains).
/// Every juice and fruit of the menu has a sample, 0 until it has one, so a rate over
/// a new series starts from a known value.
package enum MetricsExposition {
    /// The whole text, ending in a newline.
    package static func render(_ figures: MetricsFigures) -> String {
        let totals = figures.totals
        var text = tallyFamilies(
            [
                Tally(
                    labels: [], juicesMade: totals.juicesMade, ordersFailed: totals.ordersFailed, fruitConsumed: totals.fruitConsumed,
                    stock: Dictionary(uniqueKeysWithValues: Fruit.allCases.map { ($0.id, totals.stock[$0]) }))
            ], counted: "over the whole journal", stockHelp: "Fruit in stock.")
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

    enum Kind: String {
        case counter, gauge
    }

    /// One place's juice and fruit figures: a store's journal, or one machine's events
    /// in the fleet's stream. `labels` come first on each of its samples.
    struct Tally {
        var labels: [(name: String, value: String)]
        var juicesMade: [String: Int]
        var ordersFailed: [String: Int]
        var fruitConsumed: [String: Int]
        /// By fruit id; a fruit without a quantity has no sample.
        var stock: [String: Int]
    }

    /// The juice and fruit families of `tallies`, each family once with every tally's
    /// samples: every juice and fruit of the menu has a counter sample, 0 until counted.
    /// `counted` ends each counter's HELP (where it was counted); `stockHelp` is the
    /// stock gauge's HELP.
    static func tallyFamilies(_ tallies: [Tally], counted: String, stockHelp: String) -> String {
        var text = ""
        let juices = tallies.map { ids(Juice.allCases.map(\.id), $0.juicesMade, $0.ordersFailed) }
        let fruits = tallies.map { ids(Fruit.allCases.map(\.id), $0.fruitConsumed) }
        func samples(_ ids: [[String]], _ label: String, _ value: (Tally, String) -> Int?) -> [Sample] {
            zip(tallies, ids).flatMap { tally, ids in
                ids.compactMap { id in value(tally, id).map { (labels(tally.labels + [(label, id)]), "\($0)") } }
            }
        }
        family(
            &text, "juicemaker_juices_made_total", .counter, "Juices made, in cups, \(counted).",
            samples(juices, "juice") { $0.juicesMade[$1] ?? 0 })
        family(
            &text, "juicemaker_orders_failed_total", .counter, "Orders refused for lack of fruit, \(counted).",
            samples(juices, "juice") { $0.ordersFailed[$1] ?? 0 })
        family(
            &text, "juicemaker_fruit_consumed_total", .counter, "Fruit used by the juices made, \(counted).",
            samples(fruits, "fruit") { $0.fruitConsumed[$1] ?? 0 })
        family(
            &text, "juicemaker_fruit_in_stock", .gauge, stockHelp,
            samples(tallies.map { ids(Fruit.allCases.map(\.id), $0.stock) }, "fruit") { $0.stock[$1] })
        return text
    }

    /// One sample: its labels already in braces (or empty), and its value.
    typealias Sample = (labels: String, value: String)

    /// One family: HELP, TYPE and its samples. A family without samples is left out (a
    /// TYPE with nothing under it says nothing).
    static func family(_ text: inout String, _ name: String, _ kind: Kind, _ help: String, _ samples: [Sample]) {
        guard !samples.isEmpty else { return }
        text += "# HELP \(name) \(escapeHelp(help))\n# TYPE \(name) \(kind.rawValue)\n"
        for (labels, value) in samples { text += "\(name)\(labels) \(value)\n" }
    }

    /// The menu's ids in menu order, then any other id the journal holds, sorted.
    private static func ids(_ known: [String], _ counted: [String: Int]...) -> [String] {
        let others = Set(counted.flatMap(\.keys)).subtracting(known).sorted()
        return known + others
    }

    /// `{name="value",…}` with each value escaped; empty without labels.
    static func labels(_ pairs: [(name: String, value: String)]) -> String {
        pairs.isEmpty ? "" : "{" + pairs.map { "\($0.name)=\"\(escapeLabelValue($0.value))\"" }.joined(separator: ",") + "}"
    }

    private static func label(_ name: String, _ value: String) -> String { labels([(name, value)]) }

    /// A Unix time with its fraction; Go's `ParseFloat` (Prometheus') reads Swift's shortest form.
    private static func number(_ value: Double) -> String {
        value.isFinite ? "\(value)" : "NaN"
    }

    /// A label value as the format quotes it: `\` as `\\`, `"` as `\"`, a line feed as `\n`.
    package static func escapeLabelValue(_ value: String) -> String { escape(value, quotes: true) }

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
