import JuiceJSON
import JuiceMakerCore
import JuiceMakerPluginKit

/// Writes a `ConfigValue` as JSON with the JSON module's `JSONTextWriter`, keys in the
/// value's order: compact (one line, for `--json` results) or indented (for `config
/// show`). Whole numbers print without a fraction (`10`, not `10.0`).
public enum JSONWriter {
    public static func compact(_ value: ConfigValue) -> String {
        JSONTextWriter.text(of: json(value))
    }

    static func pretty(_ value: ConfigValue) -> String {
        JSONTextWriter.text(of: json(value), .indented)
    }

    /// `value` as a JSON value, each number as `ConfigurationType.format` writes it.
    private static func json(_ value: ConfigValue) -> JSONValue {
        switch value {
        case .null: .null
        case .bool(let flag): .bool(flag)
        case .number(let number, _): .number(ConfigurationType.format(number))
        case .string(let text): .string(text)
        case .array(let items): .array(items.map(json))
        case .object(let members): .object(members.map { JSONMember(key: $0.key, value: json($0.value)) })
        }
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
