/// A 128-bit UUID, kept as two integers and turned into text only when written.
public struct EventID: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let high: UInt64
    public let low: UInt64

    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// Parses the 8-4-4-4-12 hex form, either case.
    public init?(_ text: String) {
        var digits: [UInt8] = []
        digits.reserveCapacity(32)
        for (offset, byte) in text.utf8.enumerated() {
            if [8, 13, 18, 23].contains(offset) {
                guard byte == UInt8(ascii: "-") else { return nil }
                continue
            }
            guard let value = EventID.hexValue(byte) else { return nil }
            digits.append(value)
        }
        guard digits.count == 32, text.utf8.count == 36 else { return nil }
        var high: UInt64 = 0
        var low: UInt64 = 0
        for digit in digits[0..<16] { high = high << 4 | UInt64(digit) }
        for digit in digits[16..<32] { low = low << 4 | UInt64(digit) }
        self.init(high: high, low: low)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// Lowercase 8-4-4-4-12 hex (RFC 9562).
    public var description: String {
        let hex: [UInt8] = Array("0123456789abcdef".utf8)
        var bytes = [UInt8](repeating: UInt8(ascii: "-"), count: 36)
        var position = 0
        for nibble in 0..<32 {
            if position == 8 || position == 13 || position == 18 || position == 23 { position += 1 }
            let word = nibble < 16 ? high : low
            let shift = UInt64(60 - (nibble % 16) * 4)
            bytes[position] = hex[Int((word >> shift) & 0xF)]
            position += 1
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The UUID version field (7 for the ids this package makes).
    public var version: Int { Int((high >> 12) & 0xF) }

    /// The Unix time in milliseconds a UUIDv7 carries.
    public var unixMilliseconds: UInt64 { high >> 16 }

    public static func < (lhs: EventID, rhs: EventID) -> Bool {
        (lhs.high, lhs.low) < (rhs.high, rhs.low)
    }
}

/// Makes time-ordered UUIDv7 ids (RFC 9562, section 5.7) without a system call per
/// id: the random bits come from a generator seeded once from the system's secure
/// source. Within one millisecond the 12-bit `rand_a` field is a counter (RFC 9562,
/// section 6.2, method 1), so ids from one generator always increase.
public struct EventIDGenerator: Sendable {
    private var state: (UInt64, UInt64, UInt64, UInt64)
    private var lastMilliseconds: UInt64 = 0
    private var counter: UInt64 = 0

    public init() {
        var seed = SystemRandomNumberGenerator()
        state = (seed.next(), seed.next(), seed.next(), seed.next() | 1)
    }

    /// A new id for an event at `unixMilliseconds`. Never smaller than the last one.
    public mutating func next(unixMilliseconds: UInt64) -> EventID {
        var milliseconds = unixMilliseconds & 0xFFFF_FFFF_FFFF
        if milliseconds > lastMilliseconds {
            lastMilliseconds = milliseconds
            counter = random() & 0x7FF
        } else {
            milliseconds = lastMilliseconds
            counter += 1
            if counter > 0xFFF {
                lastMilliseconds += 1
                milliseconds = lastMilliseconds
                counter = 0
            }
        }
        let high = milliseconds << 16 | 0x7000 | counter
        let low = (random() & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000
        return EventID(high: high, low: low)
    }

    /// xoshiro256**.
    private mutating func random() -> UInt64 {
        let result = rotate(state.1 &* 5, 7) &* 9
        let t = state.1 << 17
        state.2 ^= state.0
        state.3 ^= state.1
        state.1 ^= state.2
        state.0 ^= state.3
        state.2 ^= t
        state.3 = rotate(state.3, 45)
        return result
    }

    private func rotate(_ x: UInt64, _ k: UInt64) -> UInt64 { (x << k) | (x >> (64 - k)) }
}
