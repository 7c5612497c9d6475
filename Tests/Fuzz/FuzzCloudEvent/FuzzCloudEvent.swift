import FuzzSupport
import JuiceJSON
import JuiceMakerCore
import JuiceMakerTesting

/// The CloudEvents decoder on any text: an envelope or WireFormatError, never a trap.
/// The fast reader, `decode`'s fast path, against the parser behind it: an envelope
/// the fast reader reads is the one the parser path reads (and JSONDecoder), and an
/// envelope the parser path reads the fast reader reads the same or leaves. A text
/// `JSONParser` takes is read into the same fields as JSONDecoder reads, or refused
/// by both (the parser is stricter only about text that is not RFC 8259 JSON, which
/// JSONDecoder partly takes where it does not decode); an envelope `decode` returns
/// JSONDecoder returns too, and it encodes and decodes back to itself.
func fuzz(_ bytes: [UInt8]) {
    let text = String(decoding: bytes, as: UTF8.self)
    let fast = bytes.withUnsafeBufferPointer { FastCloudEventReader.envelope(utf8: $0) }
    let parsed = try? CloudEventFormat.decodeWithoutFastReader(text)
    if let fast {
        precondition(parsed == fast, "the fast reader read what the parser does not")
        precondition((try? CloudEventFormat.decodeWithJSONDecoder(text)) == fast, "the fast reader read what JSONDecoder does not")
    }
    if let parsed { precondition(fast == nil || fast == parsed, "the fast reader read another event than the parser") }
    if (try? JSONParser.parse(text)) != nil {
        let fields = try? CloudEventFormat.decodedFields(text)
        precondition(fields == (try? CloudEventFormat.fieldsWithJSONDecoder(text)), "JSONParser's fields differ from JSONDecoder's")
    }
    guard let envelope = try? CloudEventFormat.decode(text) else { return }
    precondition(envelope == parsed, "decode read another event than the parser")
    precondition((try? CloudEventFormat.decodeWithJSONDecoder(text)) == envelope, "decode read what JSONDecoder does not")
    precondition((try? CloudEventFormat.decode(CloudEventFormat.encode(envelope))) == envelope, "round trip changed the event")
}

@_cdecl("LLVMFuzzerTestOneInput") public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt { FuzzInput.run(data, size, fuzz) }

@main enum Main { static func main() { FuzzInput.main(fuzzOne) } }
