#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import JuicePrimitives

/// Reads an event straight from the bytes of the JSON `CloudEventFormat.encode` writes,
/// without a `JSONValue` and without a string for each field (several times faster: a
/// journal is read once per delivery pass, and a fleet publishes tens of thousands of
/// events a second).
///
/// `decode`'s fast path, and nothing else: it takes a strict subset of what `decode`
/// accepts and answers `nil` for anything outside it, so that `decode` falls back to
/// the JSON module's `JSONParser`, which also says what is wrong. When it answers, the
/// event is the one the parser's path (`decodeWithoutFastReader`) and `JSONDecoder`
/// read (`FastCloudEventReaderTests`; the `FuzzCloudEvent` target checks both on every
/// input).
/// The subset:
/// - one object, JSON whitespace around tokens, nothing after it;
/// - the keys `encode` writes, each once: at the top level `specversion` ("1.0"),
///   `id`, `source`, `type` (a known type), `subject`, `time` (RFC 3339),
///   `datacontenttype`, `sequence` (decimal digits), `data`; in `data` exactly the
///   keys of its type (`changeId` and `fruit`, `from`, `to`, `reason`; or `juice`,
///   `count` and `consumed` or `shortages`, objects of fruit ids, each once);
/// - strings of printable ASCII (0x20…0x7E) without escapes;
/// - integers `-?(0|[1-9][0-9]*)` of at most 18 digits, not `-0`, no fraction or exponent.
package enum FastCloudEventReader {
    package static func envelope(_ text: String) -> EventEnvelope? {
        var text = text
        return text.withUTF8 { envelope(utf8: $0) }
    }

    /// The event whose UTF-8 is `bytes`. Any byte outside ASCII is outside the
    /// subset, so `bytes` need not be valid UTF-8.
    package static func envelope(utf8 bytes: UnsafeBufferPointer<UInt8>) -> EventEnvelope? {
        var reader = ByteReader(bytes: bytes)
        return reader.document()
    }
}

/// What `ByteReader` has read of `data`, each once.
private struct Payload {
    var changeID: EventID?
    var fruit: Fruit?
    var reason: StockChangeReason?
    var juice: Juice?
    var from, to, count: Int?
    var consumed, shortages: FruitAmounts?

    /// The event of `kind` these fields make, when they are exactly its fields.
    func event(of kind: EventKind) -> JuiceMakerEvent? {
        switch kind {
        case .stockChanged:
            guard let fruit, let from, let to, let reason, juice == nil, count == nil, consumed == nil, shortages == nil else { return nil }
            return .stockChanged(fruit: fruit, from: from, to: to, reason: reason)
        case .juiceMade:
            guard let juice, let count, let consumed, fruit == nil, from == nil, to == nil, reason == nil, shortages == nil else { return nil }
            return .juiceMade(juice: juice, count: count, consumed: consumed)
        case .orderFailed:
            guard let juice, let count, let shortages, fruit == nil, from == nil, to == nil, reason == nil, consumed == nil else { return nil }
            return .orderFailed(juice: juice, count: count, shortages: shortages)
        }
    }
}

/// The keys `ByteReader` takes, matched on their bytes (no string made per key).
private enum Key: String, CaseIterable {
    case specversion, id, source, type, subject, time, datacontenttype, sequence, data
    case changeId, fruit, reason, juice, from, to, count, consumed, shortages

    /// The key named `bytes`, if it is one: picked by length and first bytes, then
    /// compared whole (it runs for every key of every event read).
    init?(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard bytes.count >= 2, let base = bytes.baseAddress else { return nil }
        let key: Key
        switch (bytes.count, base[0]) {
        case (2, UInt8(ascii: "i")): key = .id
        case (2, UInt8(ascii: "t")): key = .to
        case (4, UInt8(ascii: "t")): key = base[1] == UInt8(ascii: "y") ? .type : .time
        case (4, UInt8(ascii: "d")): key = .data
        case (4, UInt8(ascii: "f")): key = .from
        case (5, UInt8(ascii: "f")): key = .fruit
        case (5, UInt8(ascii: "j")): key = .juice
        case (5, UInt8(ascii: "c")): key = .count
        case (6, UInt8(ascii: "s")): key = .source
        case (6, UInt8(ascii: "r")): key = .reason
        case (7, UInt8(ascii: "s")): key = .subject
        case (8, UInt8(ascii: "s")): key = .sequence
        case (8, UInt8(ascii: "c")): key = base[1] == UInt8(ascii: "h") ? .changeId : .consumed
        case (9, UInt8(ascii: "s")): key = .shortages
        case (11, UInt8(ascii: "s")): key = .specversion
        case (15, UInt8(ascii: "d")): key = .datacontenttype
        default: return nil
        }
        // Every name is at most 15 bytes, so `rawValue` is a small string: no allocation.
        var name = key.rawValue
        let matches = name.withUTF8 { name in
            name.count == bytes.count && name.baseAddress.map { memcmp(base, $0, name.count) == 0 } ?? false
        }
        guard matches else { return nil }
        self = key
    }
}

/// Values by the bytes of their names, compared with `memcmp`.
private struct NameTable<Value>: Sendable where Value: Sendable {
    let entries: [([UInt8], Value)]

    init(_ names: [(String, Value)]) {
        entries = names.map { (Array($0.0.utf8), $0.1) }
    }

    func value(_ bytes: UnsafeBufferPointer<UInt8>) -> Value? {
        for (name, value) in entries where Self.matches(bytes, name) { return value }
        return nil
    }

    static func matches(_ bytes: UnsafeBufferPointer<UInt8>, _ name: [UInt8]) -> Bool {
        guard bytes.count == name.count else { return false }
        guard let base = bytes.baseAddress else { return name.isEmpty }
        return name.withUnsafeBufferPointer { name in name.baseAddress.map { memcmp(base, $0, name.count) == 0 } ?? true }
    }
}

extension NameTable where Value == Void {
    static let specversion = Array("1.0".utf8)
}

extension NameTable where Value == Fruit {
    static let fruits = NameTable(Fruit.allCases.map { ($0.rawValue, $0) })
}

extension NameTable where Value == Juice {
    static let juices = NameTable(Juice.allCases.map { ($0.rawValue, $0) })
}

extension NameTable where Value == StockChangeReason {
    static let reasons = NameTable(StockChangeReason.allCases.map { ($0.rawValue, $0) })
}

extension NameTable where Value == EventKind {
    static let kinds = NameTable(EventKind.allCases.map { ($0.cloudEventType, $0) })
}

private struct ByteReader {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0

    init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    mutating func document() -> EventEnvelope? {
        var specversion = false
        var kind: EventKind?
        var id: EventID?
        var sequence: Int64?
        var time: Date?
        var source: String?
        var payload: Payload?
        // Written by `encode`, not read by `decode`.
        var subject = false
        var dataContentType = false
        let read = object { reader, name in
            switch Key(name) {
            case .specversion:
                return !specversion && reader.string { NameTable<Void>.matches($0, NameTable<Void>.specversion) } && reader.flag(&specversion)
            case .type: return reader.once(&kind) { NameTable<EventKind>.kinds.value($0) }
            case .id: return reader.once(&id) { EventID(utf8: $0) }
            case .sequence: return reader.once(&sequence) { Self.sequence($0) }
            case .time: return reader.once(&time) { RFC3339.parse(utf8: $0) }
            case .source: return reader.once(&source, checked: true) { String(decoding: $0, as: UTF8.self) }
            case .subject: return !subject && reader.string { _ in true } && reader.flag(&subject)
            case .datacontenttype: return !dataContentType && reader.string { _ in true } && reader.flag(&dataContentType)
            case .data:
                guard payload == nil, let read = reader.payload() else { return false }
                payload = read
                return true
            default: return false
            }
        }
        skipSpace()
        guard read, index == bytes.count, specversion, subject, dataContentType, let kind, let id, let sequence, let time, let source,
            let payload, let changeID = payload.changeID, let event = payload.event(of: kind)
        else { return nil }
        return EventEnvelope(sequence: sequence, id: id, time: time, source: source, changeID: changeID, event: event)
    }

    private mutating func payload() -> Payload? {
        var payload = Payload()
        let read = object { reader, name in
            switch Key(name) {
            case .changeId: return reader.once(&payload.changeID) { EventID(utf8: $0) }
            case .fruit: return reader.once(&payload.fruit) { NameTable<Fruit>.fruits.value($0) }
            case .reason: return reader.once(&payload.reason) { NameTable<StockChangeReason>.reasons.value($0) }
            case .juice: return reader.once(&payload.juice) { NameTable<Juice>.juices.value($0) }
            case .from: return reader.integer(into: &payload.from)
            case .to: return reader.integer(into: &payload.to)
            case .count: return reader.integer(into: &payload.count)
            case .consumed: return reader.amounts(into: &payload.consumed)
            case .shortages: return reader.amounts(into: &payload.shortages)
            default: return false
            }
        }
        return read ? payload : nil
    }

    /// `{"fruit": integer, …}`, fruits distinct, into `slot` unless it is already set.
    private mutating func amounts(into slot: inout FruitAmounts?) -> Bool {
        guard slot == nil else { return false }
        var amounts = FruitAmounts()
        var seen = FruitAmounts()  // 1 for each fruit read, so a repeated one is refused
        let read = object { reader, name in
            guard let fruit = NameTable<Fruit>.fruits.value(name), seen[fruit] == 0, let value = reader.integer() else { return false }
            seen[fruit] = 1
            amounts[fruit] = value
            return true
        }
        guard read else { return false }
        slot = amounts
        return true
    }

    /// `{ "key": value, … }`: `member` reads each value (answering `false` for a key
    /// it does not take, or one seen before); `true` once the closing brace is read.
    private mutating func object(_ member: (inout ByteReader, UnsafeBufferPointer<UInt8>) -> Bool) -> Bool {
        guard take(UInt8(ascii: "{")) else { return false }
        if take(UInt8(ascii: "}")) { return true }
        repeat {
            // A key is taken only when it equals a name, so its bytes need no check.
            guard let key = span(checked: false), take(UInt8(ascii: ":")), member(&self, key) else { return false }
        } while take(UInt8(ascii: ","))
        return take(UInt8(ascii: "}"))
    }

    /// A string whose bytes `parse` takes, into `slot` unless it is already set.
    /// `checked: false` when `parse` takes only printable ASCII other than `\\` (hex
    /// digits, a name from a table, a time), so that bytes it takes need no check.
    private mutating func once<Value>(
        _ slot: inout Value?, checked: Bool = false, _ parse: (UnsafeBufferPointer<UInt8>) -> Value?
    ) -> Bool {
        guard slot == nil, let text = span(checked: checked), let value = parse(text) else { return false }
        slot = value
        return true
    }

    /// A string `accepts` takes.
    private mutating func string(_ accepts: (UnsafeBufferPointer<UInt8>) -> Bool) -> Bool {
        guard let text = span() else { return false }
        return accepts(text)
    }

    private func flag(_ seen: inout Bool) -> Bool {
        seen = true
        return true
    }

    private mutating func integer(into slot: inout Int?) -> Bool {
        guard slot == nil, let value = integer() else { return false }
        slot = value
        return true
    }

    /// The bytes of a string of printable ASCII without escapes (the quotes read).
    /// `checked: false` leaves the check to the caller, which takes the bytes only if
    /// they equal something printable without a backslash; the string then still ends
    /// at the first quote, so an escaped quote leaves a text the caller refuses.
    private mutating func span(checked: Bool = true) -> UnsafeBufferPointer<UInt8>? {
        guard take(UInt8(ascii: "\"")), let base = bytes.baseAddress,
            let quote = memchr(base + index, Int32(UInt8(ascii: "\"")), bytes.count - index)
        else { return nil }
        let text = UnsafeBufferPointer(start: base + index, count: UnsafeRawPointer(quote) - UnsafeRawPointer(base + index))
        // One pass without early exit (the compiler vectorises it): any byte outside
        // 0x20…0x7E, or a backslash, leaves the text to JSONParser.
        if checked {
            var outside: UInt8 = 0
            for byte in text { outside |= ((byte &- 0x20) > 0x5E ? 1 : 0) | (byte == UInt8(ascii: "\\") ? 1 : 0) }
            guard outside == 0 else { return nil }
        }
        index += text.count + 1
        return text
    }

    /// `-?(0|[1-9][0-9]*)`, at most 18 digits (so it fits), not `-0`. What follows is
    /// checked by the caller, which takes only `,` or `}` (so never `.` or `e`).
    private mutating func integer() -> Int? {
        skipSpace()
        var negative = false
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") {
            negative = true
            index += 1
        }
        let start = index
        var value = 0
        while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") {
            // The 19th digit is refused before it is added: 18 digits always fit.
            guard index - start < 18 else { return nil }
            value = value * 10 + Int(bytes[index] - UInt8(ascii: "0"))
            index += 1
        }
        let digits = index - start
        guard digits > 0, digits == 1 || bytes[start] != UInt8(ascii: "0"), !(negative && value == 0) else { return nil }
        return negative ? -value : value
    }

    /// The journal position `encode` writes: decimal digits only, within `Int64`.
    private static func sequence(_ text: UnsafeBufferPointer<UInt8>) -> Int64? {
        guard !text.isEmpty else { return nil }
        var value: Int64 = 0
        for byte in text {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            let (shifted, overflow) = value.multipliedReportingOverflow(by: 10)
            let (sum, carry) = shifted.addingReportingOverflow(Int64(byte - UInt8(ascii: "0")))
            guard !overflow, !carry else { return nil }
            value = sum
        }
        return value
    }

    private mutating func take(_ byte: UInt8) -> Bool {
        skipSpace()
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    /// JSON's whitespace: space, tab, line feed, carriage return.
    private mutating func skipSpace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }
}
