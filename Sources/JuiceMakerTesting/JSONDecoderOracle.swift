#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import JuiceMakerCore

/// `JSONDecoder`'s reading of a CloudEvent: the reference the core's own readers (the
/// fast reader and `JSONParser` behind it) are tested and fuzzed against. Only tests
/// and benchmarks link it; the core does not, so that `juice` does not link
/// `JSONDecoder`'s FoundationEssentials tables (start-up rule "Date only", the
/// Performance article).
extension CloudEventFormat {
    /// `decode` as it was with `JSONDecoder` as its slow path: `fieldsWithJSONDecoder`,
    /// then the same checks.
    package static func decodeWithJSONDecoder(_ text: String) throws(WireFormatError) -> EventEnvelope {
        try envelope(fieldsWithJSONDecoder(text))
    }

    /// The fields `JSONDecoder` decodes from `text` into the shape of `CloudEventFields`
    /// (every property optional, as a synthesized `Decodable` reads it).
    package static func fieldsWithJSONDecoder(_ text: String) throws(WireFormatError) -> CloudEventFields {
        do {
            return try JSONDecoder().decode(DecodableFields.self, from: Data(text.utf8)).fields
        } catch {
            throw WireFormatError("not a JSON object of the expected shape: \(error)")
        }
    }

    /// The `id` `JSONDecoder` reads from `text` as an object with one `String` property
    /// `id` (what the store's recovery read of an event of an unknown type), or nil.
    package static func identityWithJSONDecoder(_ text: String) -> String? {
        try? JSONDecoder().decode(DecodableIdentity.self, from: Data(text.utf8)).id
    }
}

private struct DecodableIdentity: Decodable {
    let id: String
}

/// `CloudEventFields` as the `Decodable` the compiler synthesizes for it would read it
/// (`decodeIfPresent` for each property).
private struct DecodableFields: Decodable {
    let fields: CloudEventFields

    private enum Keys: String, CodingKey {
        case specversion, type, id, sequence, time, source, data
    }

    private enum PayloadKeys: String, CodingKey {
        case changeId, fruit, reason, juice, from, to, count, consumed, shortages
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        var fields = CloudEventFields()
        fields.specversion = try container.decodeIfPresent(String.self, forKey: .specversion)
        fields.type = try container.decodeIfPresent(String.self, forKey: .type)
        fields.id = try container.decodeIfPresent(String.self, forKey: .id)
        fields.sequence = try container.decodeIfPresent(String.self, forKey: .sequence)
        fields.time = try container.decodeIfPresent(String.self, forKey: .time)
        fields.source = try container.decodeIfPresent(String.self, forKey: .source)
        fields.data = try container.decodeIfPresent(DecodablePayload.self, forKey: .data)?.payload
        self.fields = fields
    }

    private struct DecodablePayload: Decodable {
        let payload: CloudEventFields.Payload

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: PayloadKeys.self)
            var payload = CloudEventFields.Payload()
            payload.changeId = try container.decodeIfPresent(String.self, forKey: .changeId)
            payload.fruit = try container.decodeIfPresent(String.self, forKey: .fruit)
            payload.reason = try container.decodeIfPresent(String.self, forKey: .reason)
            payload.juice = try container.decodeIfPresent(String.self, forKey: .juice)
            payload.from = try container.decodeIfPresent(Int.self, forKey: .from)
            payload.to = try container.decodeIfPresent(Int.self, forKey: .to)
            payload.count = try container.decodeIfPresent(Int.self, forKey: .count)
            payload.consumed = try container.decodeIfPresent([String: Int].self, forKey: .consumed)
            payload.shortages = try container.decodeIfPresent([String: Int].self, forKey: .shortages)
            self.payload = payload
        }
    }
}
