#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A 128-bit UUID, kept as two integers and turned into text only when written.
public struct EventID: Sendable, Hashable, Comparable, CustomStringConvertible {
    package let high: UInt64
    package let low: UInt64

    package init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// Parses the 8-4-4-4-12 hex form, either case.
    public init?(_ text: String) {
        var text = text
        guard let id = text.withUTF8({ EventID(utf8: $0) }) else { return nil }
        self = id
    }

    /// Parses the 8-4-4-4-12 hex form, either case, from its UTF-8 bytes.
    package init?(utf8 bytes: UnsafeBufferPointer<UInt8>) {
        guard bytes.count == 36, let base = bytes.baseAddress,
            base[8] == UInt8(ascii: "-"), base[13] == UInt8(ascii: "-"), base[18] == UInt8(ascii: "-"), base[23] == UInt8(ascii: "-"),
            let part1 = Self.hex(base, 0..<8), let part2 = Self.hex(base, 9..<13), let part3 = Self.hex(base, 14..<18),
            let part4 = Self.hex(base, 19..<23), let part5 = Self.hex(base, 24..<36)
        else { return nil }
        self.init(high: part1 << 32 | part2 << 16 | part3, low: part4 << 48 | part5)
    }

    /// The value of the hex digits at `range` of `base`: one pass without a branch per
    /// digit (ids are parsed for every journal row read and every PubAck).
    private static func hex(_ base: UnsafePointer<UInt8>, _ range: Range<Int>) -> UInt64? {
        var value: UInt64 = 0
        var bad = false
        for offset in range {
            let byte = base[offset]
            let digit = byte &- UInt8(ascii: "0")
            // Setting bit 0x20 lowercases 'A'...'F' and leaves 'a'...'f' as they are.
            let letter = (byte | 0x20) &- UInt8(ascii: "a")
            bad = bad || (digit > 9 && letter > 5)
            value = value << 4 | UInt64(digit <= 9 ? digit : letter &+ 10)
        }
        return bad ? nil : value
    }

    /// Lowercase 8-4-4-4-12 hex (RFC 9562).
    public var description: String {
        String(unsafeUninitializedCapacity: 36) { write(into: $0) }
    }

    /// Runs `body` with the id's text as a C string (NUL-terminated), made on the
    /// stack: for C calls that take it, with no string allocated.
    package func withCString<Result>(_ body: (UnsafePointer<CChar>) throws -> Result) rethrows -> Result {
        try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 37) { buffer in
            _ = write(into: buffer)
            buffer[36] = 0
            return try buffer.withMemoryRebound(to: CChar.self) { chars in
                // A temporary allocation of 37 always has an address.
                guard let start = chars.baseAddress else { return try description.withCString(body) }
                return try body(start)
            }
        }
    }

    /// Writes the 36 bytes of the lowercase 8-4-4-4-12 text at the start of `bytes`.
    private func write(into bytes: UnsafeMutableBufferPointer<UInt8>) -> Int {
        guard bytes.count >= 36, let base = bytes.baseAddress else { return 0 }
        /// `count` hex digits of `value`'s low bits at `base + start`.
        func put(_ value: UInt64, digits count: Int, at start: Int) {
            var value = value
            for offset in stride(from: start + count - 1, through: start, by: -1) {
                let nibble = UInt8(truncatingIfNeeded: value & 0xF)
                base[offset] = nibble < 10 ? UInt8(ascii: "0") &+ nibble : UInt8(ascii: "a") &- 10 &+ nibble
                value >>= 4
            }
        }
        put(high >> 32, digits: 8, at: 0)
        put(high >> 16, digits: 4, at: 9)
        put(high, digits: 4, at: 14)
        put(low >> 48, digits: 4, at: 19)
        put(low, digits: 12, at: 24)
        (base[8], base[13], base[18], base[23]) = (UInt8(ascii: "-"), UInt8(ascii: "-"), UInt8(ascii: "-"), UInt8(ascii: "-"))
        return 36
    }

    /// The UUID version field (7 for the ids this package makes).
    package var version: Int { Int((high >> 12) & 0xF) }

    /// The Unix time in milliseconds a UUIDv7 carries.
    package var unixMilliseconds: UInt64 { high >> 16 }

    public static func < (lhs: EventID, rhs: EventID) -> Bool {
        (lhs.high, lhs.low) < (rhs.high, rhs.low)
    }
}

/// Makes time-ordered UUIDv7 ids (RFC 9562, section 5.7).
///
/// - **Strictly increasing, also across processes.** Within one millisecond the
///   12-bit `rand_a` field is a counter (RFC 9562 section 6.2, method 1). Given the
///   journal's last id (`after:`, read inside the write transaction), the next id is
///   greater than it even when another process wrote it within the same millisecond
///   or with a clock a little ahead: the time and counter continue from it.
/// - **Random bits from the system's CSPRNG** (`/dev/urandom`, RFC 9562 section 6.9),
///   read 4 KiB at a time, so an id costs no system call of its own.
package struct EventIDGenerator: Sendable {
    private var lastMilliseconds: UInt64 = 0
    private var counter: UInt64 = 0
    /// Random words not used yet, taken from the back.
    private var pool: [UInt64] = []

    /// A generator; it reads the system's random source on first use.
    package init() {}

    /// A new id for an event at `unixMilliseconds`, greater than every id this
    /// generator made before and than `last` (a version 7 id from elsewhere).
    package mutating func next(unixMilliseconds: UInt64, after last: EventID? = nil) -> EventID {
        if let last, last.version == 7 {
            let lastCounter = last.high & 0xFFF
            if (last.unixMilliseconds, lastCounter) > (lastMilliseconds, counter) {
                lastMilliseconds = last.unixMilliseconds
                counter = lastCounter
            }
        }
        var milliseconds = unixMilliseconds & 0xFFFF_FFFF_FFFF
        if milliseconds > lastMilliseconds {
            lastMilliseconds = milliseconds
            // Room for 2,048 more ids in this millisecond before it borrows the next.
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

    private mutating func random() -> UInt64 {
        if pool.isEmpty { pool = SystemRandom.words(512) }
        return pool.removeLast()
    }
}

/// Words from the operating system's CSPRNG, many per system call.
enum SystemRandom {
    static func words(_ count: Int) -> [UInt64] {
        var words = [UInt64](repeating: 0, count: count)
        let filled = words.withUnsafeMutableBytes { buffer -> Bool in
            let descriptor = open("/dev/urandom", O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0, let base = buffer.baseAddress else { return false }
            defer { close(descriptor) }
            var offset = 0
            while offset < buffer.count {
                let got = read(descriptor, base + offset, buffer.count - offset)
                if got > 0 {
                    offset += got
                } else if got < 0, errno == EINTR {
                    continue
                } else {
                    return false
                }
            }
            return true
        }
        if !filled {
            // No /dev/urandom (a bare chroot): the same source, a word per call.
            var system = SystemRandomNumberGenerator()
            for index in words.indices { words[index] = system.next() }
        }
        return words
    }
}
