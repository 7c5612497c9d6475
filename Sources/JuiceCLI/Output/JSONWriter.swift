import JuiceMakerCore
import JuiceMakerPluginKit

/// Writes a `ConfigValue` as JSON, keys in the value's order: compact (one line, for
/// `--json` results) or indented (for `config show`). Whole numbers print without a
/// fraction (`10`, not `10.0`).
public enum JSONWriter {
    public static func compact(_ value: ConfigValue) -> String {
        var text = ""
        write(value, into: &text, indent: nil)
        return text
    }

    static func pretty(_ value: ConfigValue) -> String {
        var text = ""
        write(value, into: &text, indent: "")
        return text
    }

    private static func write(_ value: ConfigValue, into text: inout String, indent: String?) {
        switch value {
        case .null: text += "null"
        case .bool(let flag): text += flag ? "true" : "false"
        case .number(let number, _): text += format(number)
        case .string(let string): CloudEventFormat.appendQuoted(string, to: &text)
        case .array(let items):
            writeList(items.map { (nil, $0) }, open: "[", close: "]", into: &text, indent: indent)
        case .object(let members):
            writeList(members.map { ($0.key, $0.value) }, open: "{", close: "}", into: &text, indent: indent)
        }
    }

    private static func writeList(
        _ entries: [(String?, ConfigValue)], open: String, close: String, into text: inout String, indent: String?
    ) {
        text += open
        guard !entries.isEmpty else {
            text += close
            return
        }
        let inner = indent.map { $0 + "  " }
        for (position, (key, value)) in entries.enumerated() {
            if position > 0 { text += "," }
            if let inner { text += "\n" + inner }
            if let key {
                CloudEventFormat.appendQuoted(key, to: &text)
                text += indent == nil ? ":" : ": "
            }
            write(value, into: &text, indent: inner)
        }
        if let indent { text += "\n" + indent }
        text += close
    }

    private static func format(_ number: Double) -> String {
        ConfigurationType.format(number)
    }
}

extension ConfigValue {
    /// A JSON object of fruit id → amount, in `Fruit.allCases` order; zeros kept
    /// when `includingZero` (a stock), left out otherwise (consumed, shortages).
    static func amounts(_ amounts: FruitAmounts, includingZero: Bool) -> ConfigValue {
        .object(
            Fruit.allCases.compactMap { fruit in
                includingZero || amounts[fruit] != 0 ? (fruit.id, .number(Double(amounts[fruit]))) : nil
            })
    }

    static func integer(_ value: Int) -> ConfigValue { .number(Double(value)) }
}
