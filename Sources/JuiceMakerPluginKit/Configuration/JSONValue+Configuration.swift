import JuiceJSON

/// What the config adds to a JSON value: a number from a `Double`, and the value
/// comparison a list's `unique` uses.
extension JSONValue {
    /// `value` as a number, written as `ConfigurationType.format` writes it (`10`, not
    /// `10.0`): a default (`default: .number(2)`) or a figure in a `--json` result.
    public static func number(_ value: Double) -> JSONValue {
        .number(ConfigurationType.format(value))
    }

    /// Whether two values are the same config value: numbers by their `Double` (`1`,
    /// `1.0` and `1e0` are one number), objects and arrays member by member in order,
    /// anything else as `==` compares it.
    func isSameValue(as other: JSONValue) -> Bool {
        switch (self, other) {
        case (.integer, _), (.number, _):
            guard let number = doubleValue, let otherNumber = other.doubleValue else { return false }
            return number == otherNumber
        case let (.array(items), .array(others)):
            return items.count == others.count && zip(items, others).allSatisfy { $0.isSameValue(as: $1) }
        case let (.object(members), .object(others)):
            return members.count == others.count
                && zip(members, others).allSatisfy { $0.key == $1.key && $0.value.isSameValue(as: $1.value) }
        default:
            return self == other
        }
    }
}
