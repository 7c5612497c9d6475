import CCrypto
import Foundation
import JuiceTestSupport
import Testing
@testable import JuiceHTTP

/// HMAC-SHA256 and SHA-256 against RFC 4231's and FIPS 180-4's vectors and libcrypto.
@Suite(.tags(.unit)) struct HMACSHA256Tests {
    private func hex(_ text: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(index, offsetBy: 2)
            bytes.append(UInt8(text[index..<next], radix: 16) ?? 0)
            index = next
        }
        return bytes
    }

    private func hexString(_ bytes: [UInt8]) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }

    /// RFC 4231, section 4: test cases 1, 2, 3, 4, 6 and 7 (HMAC-SHA-256).
    @Test(arguments: [
        (
            "0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b", "4869205468657265",
            "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"
        ),
        (
            "4a656665", "7768617420646f2079612077616e7420666f72206e6f7468696e673f",
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        ),
        (
            "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", String(repeating: "dd", count: 50),
            "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"
        ),
        (
            "0102030405060708090a0b0c0d0e0f10111213141516171819", String(repeating: "cd", count: 50),
            "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"
        ),
        (
            String(repeating: "aa", count: 131),
            "54657374205573696e67204c6172676572205468616e20426c6f636b2d53697a65204b6579202d2048617368204b6579204669727374",
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
        ),
        (
            String(repeating: "aa", count: 131),
            "5468697320697320612074657374207573696e672061206c6172676572207468616e20626c6f636b2d73697a65206b657920616e642061206c6172676572207468616e20626c6f636b2d73697a6520646174612e20546865206b6579206e6565647320746f20626520686173686564206265666f7265206265696e6720757365642062792074686520484d414320616c676f726974686d2e",
            "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"
        ),
    ])
    func hmacMatchesRFC4231(key: String, data: String, expected: String) {
        #expect(hexString(HMACSHA256.authenticationCode(key: hex(key), message: hex(data))) == expected)
    }

    @Test func emptyKeyAndMessageStillAuthenticate() {
        // HMAC-SHA256("", "") is a well-known constant.
        #expect(
            hexString(HMACSHA256.authenticationCode(key: [], message: []))
                == "b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad")
    }

    /// The client's own HMAC-SHA256 against libcrypto's, for keys shorter than, equal
    /// to and longer than a block and messages of every length over four blocks (each
    /// padding case: the length field in the same block or the next), seeded bytes.
    @Test func matchesLibcryptoAtEveryLength() {
        var generator = SeededGenerator(seed: 0x5eed_4a11)
        for keyLength in [0, 1, 31, 32, 55, 56, 63, 64, 65, 127, 128, 200] {
            let key = (0..<keyLength).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            for messageLength in 0...260 {
                let message = (0..<messageLength).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
                let ours = HMACSHA256.authenticationCode(key: key, message: message)
                #expect(ours == Self.libcryptoHMAC(key: key, message: message), "key \(keyLength) bytes, message \(messageLength)")
            }
        }
    }

    /// Feeding SHA-256 in pieces gives the digest of the whole, wherever the cuts fall.
    @Test func digestInPiecesEqualsDigestWhole() {
        var generator = SeededGenerator(seed: 7)
        let bytes = (0..<700).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
        let whole = SHA256.digest(bytes)
        for _ in 0..<200 {
            var hash = SHA256()
            var start = 0
            while start < bytes.count {
                let end = min(bytes.count, start + Int(generator.next() % 150))
                hash.update(Array(bytes[start..<end]))
                start = end
            }
            #expect(hash.finish() == whole)
        }
        // FIPS 180-4's example "abc".
        #expect(hexString(SHA256.digest(Array("abc".utf8))) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    private static func libcryptoHMAC(key: [UInt8], message: [UInt8]) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let keyBytes = key.isEmpty ? [0] : key
        let messageBytes = message.isEmpty ? [0] : message
        _ = HMAC(EVP_sha256(), keyBytes, Int32(key.count), messageBytes, message.count, &output, &length)
        return Array(output.prefix(Int(length)))
    }
}
