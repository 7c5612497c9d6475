import FuzzSupport
import JuiceMakerCore

/// The CloudEvents decoder on any text: an envelope or WireFormatError, never a trap;
/// an envelope the fast reader reads is the one JSONDecoder reads; an envelope it
/// returns encodes and decodes back to itself.
func fuzz(_ bytes: [UInt8]) {
    let text = String(decoding: bytes, as: UTF8.self)
    if let fast = bytes.withUnsafeBufferPointer({ FastCloudEventReader.envelope(utf8: $0) }) {
        precondition((try? CloudEventFormat.decodeWithJSONDecoder(text)) == fast, "the fast reader read what JSONDecoder does not")
    }
    guard let envelope = try? CloudEventFormat.decode(text) else { return }
    precondition((try? CloudEventFormat.decode(CloudEventFormat.encode(envelope))) == envelope, "round trip changed the event")
}

@_cdecl("LLVMFuzzerTestOneInput") public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt { FuzzInput.run(data, size, fuzz) }

@main enum Main { static func main() { FuzzInput.main(fuzzOne) } }
