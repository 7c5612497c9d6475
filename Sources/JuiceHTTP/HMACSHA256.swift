/// HMAC-SHA256 (RFC 2104 over the SHA-256 of FIPS 180-4), in Swift.
///
/// The webhook signs every request with it. Doing it here rather than with libcrypto keeps
/// OpenSSL out of every `juice` command: it is loaded only when a connection to an
/// https endpoint is opened (`OpenSSL`; the start-up rule "Loaded when needed" in the
/// Performance article says why). Checked against RFC 4231's
/// vectors and, over every length across the block boundaries, against libcrypto
/// (`HMACSHA256Tests`).
package enum HMACSHA256 {
    /// The 32-byte authentication code of `message` under `key`.
    package static func authenticationCode(key: [UInt8], message: [UInt8]) -> [UInt8] {
        var block = key.count > SHA256.blockSize ? SHA256.digest(key) : key
        block += repeatElement(0, count: SHA256.blockSize - block.count)
        var inner = SHA256()
        inner.update(block.map { $0 ^ 0x36 })
        inner.update(message)
        var outer = SHA256()
        outer.update(block.map { $0 ^ 0x5c })
        outer.update(inner.finish())
        return outer.finish()
    }
}

/// SHA-256 (FIPS 180-4, section 6.2), fed in pieces.
struct SHA256 {
    static let blockSize = 64

    /// The first 32 bits of the fractional parts of the cube roots of the first 64 primes.
    private static let roundConstants: [UInt32] = [
        0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
        0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
        0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
        0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
        0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
        0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
        0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
        0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
    ]

    /// The first 32 bits of the fractional parts of the square roots of the first 8 primes.
    private var state: [UInt32] = [
        0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19,
    ]
    /// Bytes of an incomplete block, fewer than `blockSize`.
    private var pending: [UInt8] = []
    private var byteCount: UInt64 = 0
    private var schedule = [UInt32](repeating: 0, count: 64)

    /// The 32-byte digest of `bytes`.
    static func digest(_ bytes: [UInt8]) -> [UInt8] {
        var hash = SHA256()
        hash.update(bytes)
        return hash.finish()
    }

    mutating func update(_ bytes: [UInt8]) {
        byteCount &+= UInt64(bytes.count)
        var index = 0
        if !pending.isEmpty {
            index = min(Self.blockSize - pending.count, bytes.count)
            pending += bytes[..<index]
            guard pending.count == Self.blockSize else { return }
            compress(pending[...])
            pending.removeAll(keepingCapacity: true)
        }
        while bytes.count - index >= Self.blockSize {
            compress(bytes[index..<index + Self.blockSize])
            index += Self.blockSize
        }
        pending += bytes[index...]
    }

    /// Pads the message, processes the last blocks and returns the digest (big-endian
    /// words). The hash is spent: feeding it more gives no meaningful result.
    mutating func finish() -> [UInt8] {
        let bitLength = byteCount &* 8
        var tail = pending
        tail.append(0x80)
        while tail.count % Self.blockSize != Self.blockSize - 8 { tail.append(0) }
        for shift in stride(from: 56, through: 0, by: -8) { tail.append(UInt8(truncatingIfNeeded: bitLength >> UInt64(shift))) }
        var index = 0
        while index < tail.count {
            compress(tail[index..<index + Self.blockSize])
            index += Self.blockSize
        }
        pending.removeAll()
        var digest: [UInt8] = []
        digest.reserveCapacity(32)
        for word in state {
            for shift in [24, 16, 8, 0] as [UInt32] { digest.append(UInt8(truncatingIfNeeded: word >> shift)) }
        }
        return digest
    }

    /// One 64-byte block into the state.
    private mutating func compress(_ block: ArraySlice<UInt8>) {
        let base = block.startIndex
        for word in 0..<16 {
            let at = base + 4 * word
            schedule[word] =
                UInt32(block[at]) << 24 | UInt32(block[at + 1]) << 16 | UInt32(block[at + 2]) << 8 | UInt32(block[at + 3])
        }
        for word in 16..<64 {
            let early = schedule[word - 15]
            let late = schedule[word - 2]
            let sigma0 = early.rotatedRight(7) ^ early.rotatedRight(18) ^ (early >> 3)
            let sigma1 = late.rotatedRight(17) ^ late.rotatedRight(19) ^ (late >> 10)
            schedule[word] = schedule[word - 16] &+ sigma0 &+ schedule[word - 7] &+ sigma1
        }
        var (a, b, c, d) = (state[0], state[1], state[2], state[3])
        var (e, f, g, h) = (state[4], state[5], state[6], state[7])
        for round in 0..<64 {
            let sum1 = e.rotatedRight(6) ^ e.rotatedRight(11) ^ e.rotatedRight(25)
            let choice = (e & f) ^ (~e & g)
            let first = h &+ sum1 &+ choice &+ Self.roundConstants[round] &+ schedule[round]
            let sum0 = a.rotatedRight(2) ^ a.rotatedRight(13) ^ a.rotatedRight(22)
            let majority = (a & b) ^ (a & c) ^ (b & c)
            let second = sum0 &+ majority
            (h, g, f, e) = (g, f, e, d &+ first)
            (d, c, b, a) = (c, b, a, first &+ second)
        }
        state[0] &+= a
        state[1] &+= b
        state[2] &+= c
        state[3] &+= d
        state[4] &+= e
        state[5] &+= f
        state[6] &+= g
        state[7] &+= h
    }
}

extension UInt32 {
    fileprivate func rotatedRight(_ count: UInt32) -> UInt32 { self >> count | self << (32 - count) }
}
