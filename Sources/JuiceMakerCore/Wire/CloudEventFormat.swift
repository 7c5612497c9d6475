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
import JuicePrimitives

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
    package static func decode(utf8 bytes: UnsafeBufferPointer<UInt8>) throws(WireFormatError) -> EventEnvelope {
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
    package static func appendQuoted(_ text: String, to json: inout String) {
        JSONTextWriter.appendQuoted(text, to: &json)
    }
}

/// A text that is not a JuiceMaker CloudEvent.
public struct WireFormatError: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
