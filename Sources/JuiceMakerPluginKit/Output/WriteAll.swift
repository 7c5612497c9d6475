#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes every byte of `bytes` to `descriptor`, going on after a short write or an
/// interruption: the `errno` of a failure, 0 when all were written.
func writeAll(_ bytes: [UInt8], to descriptor: Int32) -> Int32 {
    bytes.withUnsafeBytes { buffer -> Int32 in
        var offset = 0
        while offset < buffer.count, let base = buffer.baseAddress {
            let written = write(descriptor, base + offset, buffer.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                return errno
            }
            offset += written
        }
        return 0
    }
}
