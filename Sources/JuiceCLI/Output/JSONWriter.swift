import JuiceJSON
import JuiceMakerCore
import JuiceMakerPluginKit

/// Writes a `JSONValue` as JSON with the JSON module's `JSONTextWriter`, keys in the
/// value's order: compact (one line, for `--json` results) or indented (for `config
/// show`). Every number is written as `ConfigurationType.format` writes its `Double`
/// (`10`, not `10.0` or `1e1`), so the printed config does not depend on how a number
/// was spelled in the file.
package enum JSONWriter {
    package static func compact(_ value: JSONValue) -> String {
        JSONTextWriter.text(of: normalized(value))
    }

    static func pretty(_ value: JSONValue) -> String {
        JSONTextWriter.text(of: normalized(value), .indented)
    }

    /// `value` with each number as `ConfigurationType.format` writes its `Double`
    /// (`.integer` too: `9007199254740992.0`, as the schema has always printed it).
    /// Recursive, as deep as the value (a config's is at most `JSONReader`'s limit).
    private static func normalized(_ value: JSONValue) -> JSONValue {
        switch value {
        case .integer, .number: .number(ConfigurationType.format(value.doubleValue ?? .nan))
        case .array(let items): .array(items.map(normalized))
        case .object(let members): .object(members.map { JSONMember(key: $0.key, value: normalized($0.value)) })
        case .string, .bool, .null: value
        }
    }
}

extension JSONValue {
    /// An object of `members`, in their order: the CLI's results are written as
    /// `.object([("juice", .string(id)), ("count", .integer(2))])`.
    static func object(_ members: [(key: String, value: JSONValue)]) -> JSONValue {
        .object(members.map { JSONMember(key: $0.key, value: $0.value) })
    }

    /// A JSON object of fruit id → amount, in `Fruit.allCases` order; zeros kept
    /// when `includingZero` (a stock), left out otherwise (consumed, shortages).
    static func amounts(_ amounts: FruitAmounts, includingZero: Bool) -> JSONValue {
        .object(
            Fruit.allCases.compactMap { fruit in
                includingZero || amounts[fruit] != 0 ? (fruit.id, .integer(amounts[fruit])) : nil
            })
    }
}
