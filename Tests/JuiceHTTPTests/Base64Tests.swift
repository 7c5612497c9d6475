import FoundationEssentials
import JuiceTestSupport
import Testing
@testable import JuiceHTTP

/// Base64 (signatures, `Authorization: Basic`, secrets) against RFC 4648's test
/// vectors, FoundationEssentials' `Data.base64EncodedString()` and its own decoder.
@Suite(.tags(.unit)) struct Base64Tests {
    @Test func rfc4648Vectors() {
        let vectors = [
            ("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foob", "Zm9vYg=="), ("fooba", "Zm9vYmE="), ("foobar", "Zm9vYmFy"),
        ]
        for (text, encoded) in vectors { #expect(Base64.encoded(Array(text.utf8)) == encoded, "\(text)") }
        #expect(Base64.encoded([0xFB, 0xFF, 0xBF]) == "+/+/")
        #expect(Base64.encoded([0, 0, 0, 0]) == "AAAAAA==")
    }

    @Test func agreesWithFoundationAndDecodesWhatItEncodes() {
        var generator = SeededGenerator(seed: 4648)
        for length in 0...64 {
            for _ in 0..<8 {
                let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
                let encoded = Base64.encoded(bytes)
                #expect(encoded == Data(bytes).base64EncodedString(), "\(bytes)")
                if !bytes.isEmpty { #expect(Base64.decoded(Substring(encoded)) == bytes, "\(bytes)") }
            }
        }
    }
}
