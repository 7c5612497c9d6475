#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import JuiceJSON

/// The one wire format of JuiceMaker events: CloudEvents 1.0, structured JSON mode.
/// Logger JSON lines, webhook bodies and command stdin all use it.
///
/// ```json
/// {"specversion":"1.0","id":"…","source":"/juice-maker","type":"juicemaker.juice.made",
///  "subject":"mango-kiwi","time":"2026-11-21T04:23:49.123Z","datacontenttype":"application/json",
///  "sequence":"00000000000000000042","data":{…}}
/// ```
/// `sequence` is the CloudEvents sequence extension: the position in the journal of the
/// machine that made the event (`EventEnvelope.publishedSequence`), as a zero-padded
/// decimal string, so it orders lexicographically. An event read from the fleet's NATS
/// stream keeps the machine's `sequence` and adds `streamsequence`, its sequence in the
/// stream, in the same form (an extension attribute of this format).
public enum CloudEventFormat {
    /// The HTTP content type of one structured event.
    public static let contentType = "application/cloudevents+json"

    /// One event as a single line of JSON (no newline), keys in a fixed order.
    public static func encode(_ envelope: EventEnvelope) -> String {
        var json = JSONTextWriter()
        json.beginObject()
        json.member("specversion", "1.0")
        json.member("id", envelope.id.description)
        json.member("source", envelope.source)
        json.member("type", envelope.event.kind.cloudEventType)
        json.member("subject", subject(of: envelope.event))
        json.member("time", RFC3339.format(envelope.time))
        json.member("datacontenttype", "application/json")
        json.member("sequence", paddedSequence(envelope.publishedSequence))
        if let stream = envelope.streamSequence { json.member("streamsequence", paddedSequence(stream)) }
        json.key("data")
        json.beginObject()
        json.member("changeId", envelope.changeID.description)
        switch envelope.event {
        case let .stockChanged(fruit, from, to, reason):
            json.member("fruit", fruit.id)
            json.member("from", from)
            json.member("to", to)
            json.member("reason", reason.rawValue)
        case let .juiceMade(juice, count, consumed):
            json.member("juice", juice.id)
            json.member("count", count)
            json.key("consumed")
            amounts(consumed, into: &json)
        case let .orderFailed(juice, count, shortages):
            json.member("juice", juice.id)
            json.member("count", count)
            json.key("shortages")
            amounts(shortages, into: &json)
        }
        json.endObject()
        json.endObject()
        return json.text
    }

    /// Parses one structured CloudEvent made by `encode`.
    public static func decode(_ text: String) throws(WireFormatError) -> EventEnvelope {
        if let envelope = FastCloudEventReader.envelope(text) { return envelope }
        return try envelope(decodedFields(text))
    }

    /// `decode` of the UTF-8 text in `bytes` (a store's column as it lies in memory):
    /// what `decode(String(decoding: bytes, as: UTF8.self))` answers, without making
    /// that string when the fast reader takes the text.
    public static func decode(utf8 bytes: UnsafeBufferPointer<UInt8>) throws(WireFormatError) -> EventEnvelope {
        if let envelope = FastCloudEventReader.envelope(utf8: bytes) { return envelope }
        return try envelope(decodedFields(String(decoding: bytes, as: UTF8.self)))
    }

    /// `decode` without the fast reader: what it answers for a text the fast reader
    /// leaves.
    package static func decodeWithoutFastReader(_ text: String) throws(WireFormatError) -> EventEnvelope {
        try envelope(decodedFields(text))
    }

    /// The envelope `wire` describes, or what is missing or wrong in it.
    package static func envelope(_ wire: CloudEventFields) throws(WireFormatError) -> EventEnvelope {
        guard try required(wire.specversion, "specversion") == "1.0" else { throw WireFormatError("specversion must be \"1.0\"") }
        let type = try required(wire.type, "type")
        guard let kind = EventKind.allCases.first(where: { $0.cloudEventType == type }) else {
            throw WireFormatError("unknown type \"\(type)\"")
        }
        guard let id = EventID(try required(wire.id, "id")) else { throw WireFormatError("id is not a UUID") }
        // The journal position as `encode` writes it: decimal digits only. Int64() alone
        // also took "-2" and "+2", and "-2" encodes as "00000000000000000-2", which no
        // reader takes back (found by FuzzCloudEvent).
        let sequenceText = try required(wire.sequence, "sequence")
        guard !sequenceText.isEmpty, sequenceText.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let sequence = Int64(sequenceText) else {
            throw WireFormatError("sequence is not a zero-padded decimal number")
        }
        guard let time = RFC3339.parse(try required(wire.time, "time")) else { throw WireFormatError("time is not RFC 3339") }
        let data = try required(wire.data, "data")
        guard let changeID = EventID(try required(data.changeId, "data.changeId")) else { throw WireFormatError("data.changeId is not a UUID") }
        let event: JuiceMakerEvent
        switch kind {
        case .stockChanged:
            guard let reason = StockChangeReason(rawValue: try required(data.reason, "data.reason")) else {
                throw WireFormatError("data.reason is not one of order, restock, edit")
            }
            guard let fruit = Fruit(rawValue: try required(data.fruit, "data.fruit")) else { throw WireFormatError("data.fruit is not a fruit id") }
            event = .stockChanged(fruit: fruit, from: try required(data.from, "data.from"), to: try required(data.to, "data.to"), reason: reason)
        case .juiceMade:
            event = .juiceMade(
                juice: try juice(data.juice), count: try required(data.count, "data.count"),
                consumed: try amounts(data.consumed, "data.consumed"))
        case .orderFailed:
            event = .orderFailed(
                juice: try juice(data.juice), count: try required(data.count, "data.count"),
                shortages: try amounts(data.shortages, "data.shortages"))
        }
        return EventEnvelope(
            sequence: sequence, id: id, time: time, source: try required(wire.source, "source"),
            changeID: changeID, event: event)
    }

    /// The fields of `text` read by the JSON module's `JSONParser` (`Options.cloudEvents`),
    /// not `JSONDecoder` (start-up rule "Date only", the Performance article). It reads
    /// them as `JSONDecoder` reads this shape (`CloudEventFields.init(json:)`) and
    /// refuses what `JSONDecoder` refuses; it
    /// refuses more in two corners (`CloudEventParserTests.knownDifferences`): text
    /// that is not RFC 8259 JSON, or a lone surrogate escape, in a value `JSONDecoder`
    /// does not decode, and a whole number from 2^53 up with more than 38 significant
    /// digits, which `JSONDecoder` reads as its first 38. Every field is optional, so a
    /// missing one is named by `decode`; a field of the wrong type (or a text that is
    /// not a JSON object) fails here.
    package static func decodedFields(_ text: String) throws(WireFormatError) -> CloudEventFields {
        let json: JSONValue
        do {
            json = try JSONParser.parse(text, options: .cloudEvents)
        } catch {
            throw WireFormatError("not a JSON object of the expected shape: \(error)")
        }
        do {
            return try CloudEventFields(json: json)
        } catch {
            throw WireFormatError("not a JSON object of the expected shape: \(error)")
        }
    }

    /// The `id` of `text` when it is a JSON object whose `id` is a string, as
    /// `JSONDecoder` reads an object with one `String` property `id` (the first of
    /// repeated ones; `null` is no id): what the store's recovery checks of an event of
    /// a type this build does not know.
    package static func objectID(_ text: String) -> String? {
        guard let json = try? JSONParser.parse(text, options: .cloudEvents), case .object = json, case let .string(id)? = json.member("id") else {
            return nil
        }
        return id
    }

    private static func required<T>(_ value: T?, _ path: String) throws(WireFormatError) -> T {
        guard let value else { throw WireFormatError("missing \(path)") }
        return value
    }

    private static func juice(_ text: String?) throws(WireFormatError) -> Juice {
        guard let juice = Juice(rawValue: try required(text, "data.juice")) else { throw WireFormatError("data.juice is not a juice id") }
        return juice
    }

    private static func amounts(_ values: [String: Int]?, _ path: String) throws(WireFormatError) -> FruitAmounts {
        var amounts = FruitAmounts()
        for (name, amount) in try required(values, path) {
            guard let fruit = Fruit(rawValue: name) else { throw WireFormatError("\(path).\(name) is not a fruit id") }
            amounts[fruit] = amount
        }
        return amounts
    }

    /// The CloudEvents `subject`: the fruit or juice the event is about.
    static func subject(of event: JuiceMakerEvent) -> String {
        switch event {
        case let .stockChanged(fruit, _, _, _): fruit.id
        case let .juiceMade(juice, _, _), let .orderFailed(juice, _, _): juice.id
        }
    }

    static func paddedSequence(_ sequence: Int64) -> String {
        let digits = String(sequence)
        return String(repeating: "0", count: max(0, 20 - digits.count)) + digits
    }

    /// An object of fruit id → amount, the fruits with an amount only.
    private static func amounts(_ amounts: FruitAmounts, into json: inout JSONTextWriter) {
        json.beginObject()
        for (fruit, amount) in amounts.nonZero { json.member(fruit.id, amount) }
        json.endObject()
    }

    /// Appends `text` as a JSON string literal, every character that steers a terminal
    /// (`TerminalControl`) written as `\uXXXX`, so the JSON can be shown as it is and
    /// stays one line by any reader's count (`JSONTextWriter.appendQuoted`).
    public static func appendQuoted(_ text: String, to json: inout String) {
        JSONTextWriter.appendQuoted(text, to: &json)
    }
}

/// A text that is not a JuiceMaker CloudEvent.
public struct WireFormatError: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// RFC 3339 timestamps in UTC with milliseconds (`2026-11-21T04:23:49.123Z`).
public enum RFC3339 {
    /// The first and last instants RFC 3339 can write: its `date-fullyear` is exactly
    /// four digits (section 5.6), so years 0000…9999 only; a date outside is clamped.
    static let writableMilliseconds: ClosedRange<Double> = -62_167_219_200_000...253_402_300_799_999

    public static func format(_ date: Date) -> String {
        // To the nearest millisecond: a millisecond-precise date (every committed event
        // time) is often a hair below its value once converted to the Unix epoch.
        let exact = (date.timeIntervalSince1970 * 1000).rounded()
        let totalMilliseconds = Int64(exact.isNaN ? 0 : min(max(exact, writableMilliseconds.lowerBound), writableMilliseconds.upperBound))
        let milliseconds = Int(((totalMilliseconds % 1000) + 1000) % 1000)
        let seconds = (totalMilliseconds - Int64(milliseconds)) / 1000
        let days = Int((seconds - ((seconds % 86_400) + 86_400) % 86_400) / 86_400)
        let secondOfDay = Int(((seconds % 86_400) + 86_400) % 86_400)
        let (year, month, day) = civil(fromDays: days)
        func padded(_ n: Int, _ width: Int) -> String {
            let digits = String(n)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        func two(_ n: Int) -> String { padded(n, 2) }
        let millis = padded(milliseconds, 3)
        return
            "\(padded(year, 4))-\(two(month))-\(two(day))T\(two(secondOfDay / 3600)):\(two(secondOfDay / 60 % 60)):\(two(secondOfDay % 60)).\(millis)Z"
    }

    /// Parses `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`.
    public static func parse(_ text: String) -> Date? {
        var text = text
        return text.withUTF8 { parse(utf8: $0) }
    }

    /// `parse` of the UTF-8 text in `bytes`.
    public static func parse(utf8 bytes: UnsafeBufferPointer<UInt8>) -> Date? {
        func number(_ range: Range<Int>) -> Int? {
            guard range.upperBound <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[range] {
                guard byte >= 48, byte <= 57 else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            return value
        }
        guard bytes.count >= 20, bytes[4] == 45, bytes[7] == 45, bytes[10] == 84 || bytes[10] == 116,
            bytes[13] == 58, bytes[16] == 58,
            let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        var index = 19
        var fraction = 0.0
        if index < bytes.count, bytes[index] == 46 {
            index += 1
            var scale = 0.1
            let start = index
            while index < bytes.count, bytes[index] >= 48, bytes[index] <= 57 {
                fraction += Double(bytes[index] - 48) * scale
                scale /= 10
                index += 1
            }
            if index == start { return nil }
        }
        var offsetSeconds = 0
        guard index < bytes.count else { return nil }
        if bytes[index] == 90 || bytes[index] == 122 {
            index += 1
        } else if bytes[index] == 43 || bytes[index] == 45, let hours = number(index + 1..<index + 3),
            index + 3 < bytes.count, bytes[index + 3] == 58, let minutes = number(index + 4..<index + 6),
            // time-numoffset = ("+" / "-") time-hour ":" time-minute, where time-hour
            // is 00-23 and time-minute 00-59 (RFC 3339 section 5.6).
            hours < 24, minutes < 60
        {
            offsetSeconds = (hours * 3600 + minutes * 60) * (bytes[index] == 45 ? -1 : 1)
            index += 6
        } else {
            return nil
        }
        guard index == bytes.count, day <= daysIn(month, of: year) else { return nil }
        let days = self.days(fromCivil: year, month, day)
        let seconds = Int64(days) * 86_400 + Int64(hour * 3600 + minute * 60 + second - offsetSeconds)
        let milliseconds = Int64((fraction * 1000).rounded())
        return Date(timeIntervalSince1970: Double(seconds * 1000 + milliseconds) / 1000)
    }

    /// Days in `month` (1-12) of `year`, proleptic Gregorian (also used by the HTTP-date parser).
    package static func daysIn(_ month: Int, of year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    // Howard Hinnant's days-from-civil algorithms (proleptic Gregorian calendar).
    private static func civil(fromDays z: Int) -> (Int, Int, Int) {
        let z = z + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// Days from 1970-01-01 to `year-month-day` (also used by the HTTP-date parser).
    package static func days(fromCivil year: Int, _ month: Int, _ day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }
}
