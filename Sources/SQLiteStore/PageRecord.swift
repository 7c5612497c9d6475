import CSQLite

/// One value of a record read from a page (https://sqlite.org/fileformat.html#record_format).
enum PageValue: Equatable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])

    var text: String? {
        if case let .text(value) = self { return value }
        return nil
    }

    var integer: Int64? {
        if case let .integer(value) = self { return value }
        return nil
    }

    /// Binds the value to parameter `index` (1-based) of `statement`.
    func bind(to statement: Statement, at index: Int32) {
        switch self {
        case .null: sqlite3_bind_null(statement.handle, index)
        case let .integer(value): statement.bind(index, value)
        case let .real(value): statement.bind(index, value)
        case let .text(value): statement.bind(index, value)
        case let .blob(bytes): statement.bind(index, bytes)
        }
    }
}

enum PageRecord {
    /// The values of the record `payload` holds, or nil when its header and body do
    /// not agree (damage) or a text is not UTF-8.
    static func values(_ payload: [UInt8]) -> [PageValue]? {
        var offset = 0
        guard let headerSize = Varint.read(payload, at: &offset), headerSize >= 1, headerSize <= Int64(payload.count) else {
            return nil
        }
        var types: [Int64] = []
        while offset < Int(headerSize) {
            guard let type = Varint.read(payload, at: &offset) else { return nil }
            types.append(type)
        }
        guard offset == Int(headerSize) else { return nil }
        var body = offset
        var values: [PageValue] = []
        values.reserveCapacity(types.count)
        for type in types {
            guard let (value, length) = value(of: type, in: payload, at: body) else { return nil }
            values.append(value)
            body += length
        }
        return body == payload.count ? values : nil
    }

    /// The value of serial type `type` at `offset`, and its length in bytes.
    private static func value(of type: Int64, in payload: [UInt8], at offset: Int) -> (PageValue, Int)? {
        let integerLengths: [Int64: Int] = [1: 1, 2: 2, 3: 3, 4: 4, 5: 6, 6: 8]
        switch type {
        case 0: return (.null, 0)
        case 8: return (.integer(0), 0)
        case 9: return (.integer(1), 0)
        case 7:
            guard let bits = bigEndian(payload, at: offset, length: 8) else { return nil }
            return (.real(Double(bitPattern: bits)), 8)
        case 1...6:
            let length = integerLengths[type] ?? 8
            guard let bits = bigEndian(payload, at: offset, length: length) else { return nil }
            // Sign-extend from the stored width.
            let shift = UInt64(64 - 8 * length)
            return (.integer(Int64(bitPattern: bits << shift) >> Int64(shift)), length)
        case 12...:
            let length = Int((type - 12) / 2)
            guard offset + length <= payload.count else { return nil }
            let bytes = payload[offset..<offset + length]
            if type % 2 == 0 { return (.blob(Array(bytes)), length) }
            guard let text = String(validating: bytes, as: UTF8.self) else { return nil }
            return (.text(text), length)
        default:
            return nil
        }
    }

    private static func bigEndian(_ bytes: [UInt8], at offset: Int, length: Int) -> UInt64? {
        guard offset + length <= bytes.count else { return nil }
        return bytes[offset..<offset + length].reduce(0) { $0 << 8 | UInt64($1) }
    }
}
