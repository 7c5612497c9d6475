#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A number that identifies the calling thread while it lives; never 0.
///
/// The package's re-entrant locks record their holder with it, so a thread can tell
/// whether it already holds one (only the holder ever reads its own identity back).
@inlinable @inline(__always)
public func currentThreadIdentity() -> UInt {
    #if canImport(Darwin)
    return UInt(bitPattern: pthread_self())
    #else
    return UInt(pthread_self())
    #endif
}
