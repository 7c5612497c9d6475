import JuiceJSON

/// The fields of one structured CloudEvent as `CloudEventFormat.decode` reads them,
/// before it checks them: each optional, so that a missing one can be named.
package struct CloudEventFields: Equatable, Sendable {
    package var specversion, type, id, sequence, time, source: String?
    package var data: Payload?

    package struct Payload: Equatable, Sendable {
        package var changeId, fruit, reason, juice: String?
        package var from, to, count: Int?
        package var consumed, shortages: [String: Int]?

        package init() {}
    }

    package init() {}
}

extension CloudEventFields {
    /// The fields of `json` as `JSONDecoder` decodes this shape (`Decodable` with every
    /// property optional), which the fast reader was built to agree with: keys it does
    /// not name are ignored; a missing key or `null` is nil; of a repeated key only the
    /// first is read; a key of the wrong JSON type, or a document that is not an
    /// object, is an error naming it.
    init(json: JSONValue) throws(WireFormatError) {
        guard case .object = json else { throw WireFormatError("the text is \(json.kind), not an object") }
        self.init()
        specversion = try Self.string(json, "specversion")
        type = try Self.string(json, "type")
        id = try Self.string(json, "id")
        sequence = try Self.string(json, "sequence")
        time = try Self.string(json, "time")
        source = try Self.string(json, "source")
        switch json.member("data") {
        case nil, .null?: data = nil
        case let data?:
            guard case .object = data else { throw WireFormatError("data is \(data.kind), not an object") }
            var payload = Payload()
            payload.changeId = try Self.string(data, "changeId", in: "data.")
            payload.fruit = try Self.string(data, "fruit", in: "data.")
            payload.reason = try Self.string(data, "reason", in: "data.")
            payload.juice = try Self.string(data, "juice", in: "data.")
            payload.from = try Self.integer(data, "from", in: "data.")
            payload.to = try Self.integer(data, "to", in: "data.")
            payload.count = try Self.integer(data, "count", in: "data.")
            payload.consumed = try Self.amounts(data, "consumed")
            payload.shortages = try Self.amounts(data, "shortages")
            self.data = payload
        }
    }

    private static func string(_ object: JSONValue, _ key: String, in path: String = "") throws(WireFormatError) -> String? {
        switch object.member(key) {
        case nil, .null?: return nil
        case let .string(text)?: return text
        case let other?: throw WireFormatError("\(path)\(key) is \(other.kind), not a string")
        }
    }

    private static func integer(_ object: JSONValue, _ key: String, in path: String) throws(WireFormatError) -> Int? {
        switch object.member(key) {
        case nil, .null?: return nil
        case let value?: return try integer(value, path + key)
        }
    }

    /// A `[String: Int]` as `JSONDecoder` decodes one: of a repeated key the first
    /// value is taken and the later ones are not looked at; `null` is not an `Int`.
    private static func amounts(_ object: JSONValue, _ key: String) throws(WireFormatError) -> [String: Int]? {
        switch object.member(key) {
        case nil, .null?: return nil
        case let .object(members)?:
            var amounts: [String: Int] = [:]
            for member in members where amounts[member.key] == nil {
                amounts[member.key] = try integer(member.value, "data.\(key).\(member.key)")
            }
            return amounts
        case let other?: throw WireFormatError("data.\(key) is \(other.kind), not an object")
        }
    }

    /// The `Int` `JSONDecoder` reads for `value`. An integer literal is read exactly.
    /// Any other number is read as the nearest `Double` (`1.0`, `1e2`, and
    /// `1.0000000000000001`, which rounds to 1), which must be a whole number `Int`
    /// holds; below 2^53 that `Double` is the value, from 2^53 up the text's own value
    /// with its fraction dropped (`JSONDecoder` reads it again as a `Decimal` there,
    /// so that `9007199254740993.0` is not read as ...992).
    private static func integer(_ value: JSONValue, _ path: String) throws(WireFormatError) -> Int {
        switch value {
        case let .integer(integer): return integer
        case let .number(text):
            guard let double = Double(text), let integer = Int(exactly: double) else {
                throw WireFormatError("\(path) is \(text), not a whole number Int holds")
            }
            if double.magnitude < 0x1p53 { return integer }
            guard let exact = truncatedInteger(text) else { throw WireFormatError("\(path) is \(text), not a whole number Int holds") }
            return exact
        default: throw WireFormatError("\(path) is \(value.kind), not a number")
        }
    }

    /// The value of the JSON number `text` with its fraction dropped, as `JSONDecoder`
    /// reads a number from 2^53 up through `Decimal`: the significant digits (without
    /// trailing zeros) must fit in a `UInt64`, and the result's magnitude in `Int`
    /// (so not -2^63). `Decimal` keeps 38 significant digits and drops the rest, so
    /// `JSONDecoder` takes `9007199254740993.0000000000000000000000001`; this does not.
    private static func truncatedInteger(_ text: String) -> Int? {
        var significand: [UInt8] = []
        var exponent = 0
        var negative = false
        var inFraction = false
        var utf8 = text.utf8[...]
        while let byte = utf8.popFirst() {
            switch byte {
            case UInt8(ascii: "-"): negative = true
            case UInt8(ascii: "."): inFraction = true
            case UInt8(ascii: "e"), UInt8(ascii: "E"):
                guard let written = Int(String(decoding: utf8, as: UTF8.self).drop(while: { $0 == "+" })), written.magnitude < 100_000 else {
                    return nil
                }
                exponent += written
                utf8 = utf8[utf8.endIndex...]
            default:
                if !(significand.isEmpty && byte == 0x30) { significand.append(byte - 0x30) }
                if inFraction { exponent -= 1 }
            }
        }
        while significand.last == 0 {
            significand.removeLast()
            exponent += 1
        }
        var magnitude: UInt64 = 0
        for digit in significand {
            let (shifted, overflow) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, carry) = shifted.addingReportingOverflow(UInt64(digit))
            guard !overflow, !carry else { return nil }
            magnitude = sum
        }
        if exponent < 0 {
            while exponent < 0, magnitude != 0 {
                magnitude /= 10
                exponent += 1
            }
        } else {
            for _ in 0..<exponent {
                let (shifted, overflow) = magnitude.multipliedReportingOverflow(by: 10)
                guard !overflow else { return nil }
                magnitude = shifted
            }
        }
        guard let integer = Int(exactly: magnitude) else { return nil }
        return negative ? -integer : integer
    }
}
