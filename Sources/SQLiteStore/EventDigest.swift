/// A journal row's digest: FNV-1a (64 bits) of its `event` text, written beside it in
/// the same insert. SQLite keeps no checksum of a row, so a byte changed in place that
/// leaves the row valid and consistent with itself (a digit of a quantity) would
/// otherwise pass every check; with the digest, recovery tells it from the truth.
/// Rows written before the column existed have none (NULL) and are judged without it.
package enum EventDigest {
    package static func of(_ event: String) -> Int64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in event.utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
        }
        return Int64(bitPattern: hash)
    }
}
