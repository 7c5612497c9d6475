import CSQLite
import JuiceMakerCore
import JuicePrimitives

/// The one way a stored value becomes a domain value: every column the store reads
/// is read by its table's rule (`RowCheck.tables`, the rules recovery holds rows to),
/// so a value the store never writes (a time of 2.4e163, a count below zero, text
/// where a number belongs) is damage, thrown as `impossibleValue` naming the table,
/// the row and the column, and never converted into a trap.
struct StoredColumn: Sendable {
    let table: String
    let name: String
    let rule: RowCheck.Column

    /// `name` of `table` by the table's rule; a column without one is refused as a
    /// value of no known shape.
    init(_ table: String, _ name: String) {
        self.table = table
        self.name = name
        rule = RowCheck.rule(of: table, name) ?? .unknown
    }
}

extension Statement {
    /// Column `index`, `column` of the row that `row` names, when its rule admits it.
    func checked(_ index: Int32, _ column: StoredColumn, row: @autoclosure () -> String) throws(StoreError) -> PageValue {
        guard let value = value(index) else {
            throw StoredColumn.impossible(column, row: row(), value: "text that is not UTF-8")
        }
        guard column.rule.admits(value) else { throw StoredColumn.impossible(column, row: row(), value: value.shown) }
        return value
    }

    /// An integer column (a sequence, a count, a kind, a flag) within its rule's range.
    func integer(_ index: Int32, _ column: StoredColumn, row: @autoclosure () -> String) throws(StoreError) -> Int64 {
        let value = try checked(index, column, row: row())
        guard case let .integer(number) = value else { throw StoredColumn.impossible(column, row: row(), value: value.shown) }
        return number
    }

    /// A count: an integer column within its rule's range, as an `Int`.
    func count(_ index: Int32, _ column: StoredColumn, row: @autoclosure () -> String) throws(StoreError) -> Int {
        let number = try integer(index, column, row: row())
        guard let count = Int(exactly: number) else { throw StoredColumn.impossible(column, row: row(), value: "\(number)") }
        return count
    }

    /// A time column: seconds since 1970, finite and within `RowCheck.times`.
    func time(_ index: Int32, _ column: StoredColumn, row: @autoclosure () -> String) throws(StoreError) -> Double {
        switch try checked(index, column, row: row()) {
        case let .real(seconds): return seconds
        case let .integer(seconds): return Double(seconds)
        case let value: throw StoredColumn.impossible(column, row: row(), value: value.shown)
        }
    }

    /// A text column, valid UTF-8 (and not empty where its rule says so).
    func string(_ index: Int32, _ column: StoredColumn, row: @autoclosure () -> String) throws(StoreError) -> String {
        let value = try checked(index, column, row: row())
        guard case let .text(text) = value else { throw StoredColumn.impossible(column, row: row(), value: value.shown) }
        return text
    }
}

extension StoredColumn {
    /// The error of a value `column` never holds.
    static func impossible(_ column: StoredColumn, row: String, value: String) -> StoreError {
        StoreError(.impossibleValue(table: column.table, row: row, column: column.name, value: value), path: "")
    }

    /// `error` with the store's path, when it is one `impossible` made without one.
    static func located(_ error: StoreError, at path: String) -> StoreError {
        guard error.path.isEmpty else { return error }
        return StoreError(error.reason, path: path)
    }

    /// `sum` plus `value`, or damage naming `column` when the stored sums add up past
    /// what an `Int` holds (no store that counted real events gets there).
    static func adding(_ value: Int, to sum: Int, _ column: StoredColumn, row: @autoclosure () -> String) throws(StoreError) -> Int {
        let (total, overflow) = sum.addingReportingOverflow(value)
        guard !overflow else { throw impossible(column, row: row(), value: "\(value), past any sum of events") }
        return total
    }
}

extension PageValue {
    /// The value as a damage report shows it: short, one line, its type said.
    var shown: String {
        switch self {
        case .null: "NULL"
        case let .integer(number): "\(number)"
        case let .real(number): "\(number)"
        case let .text(text):
            text.isEmpty ? "'' (empty text)" : "'\(String(text.prefix(40)).replacingText("\n", with: " "))' (text)"
        case let .blob(bytes): "a blob of \(bytes.count) bytes"
        }
    }

    /// The value as a key that names a row: text in quotes, anything else as `shown`.
    var naming: String {
        guard case let .text(text) = self, !text.isEmpty else { return shown }
        return "'\(String(text.prefix(40)).replacingText("\n", with: " "))'"
    }
}
