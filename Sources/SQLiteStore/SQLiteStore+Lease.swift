#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import JuiceMakerCore
import JuicePrimitives

/// What `waitForEvents` callers of one store share (see `SQLiteStore.arrivals`).
struct Arrivals {
    /// Moves on at every local commit with events and whenever the poller saw one
    /// made elsewhere.
    var generation: UInt64 = 0
    /// Whether a waiter is looking for other processes' commits now.
    var polling = false
    /// The reader connection's `PRAGMA data_version` at the last look.
    var version: Int64?
}

extension SQLiteStore {
    /// The lease is an exclusive `flock` on `<store>.lease-<subscriber>` (created
    /// user-only): the kernel frees it when its holder exits, also on a crash or
    /// SIGKILL, and two opens in one process exclude each other as two processes do.
    package func takeDeliveryLease(for subscriber: String) throws(StoreError) -> DeliveryLease? {
        let file = Self.leasePath(store: path, subscriber: subscriber)
        let descriptor: Int32
        do throws(FileRefusal) {
            descriptor = try FileGate.openForUpdating(file)
        } catch {
            let code: Int32 = if case .system(let code) = error { code } else { EINVAL }
            throw StoreError(.leaseUnavailable(file: file, .current(code)), path: path)
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let error = errno
            close(descriptor)
            if error == EWOULDBLOCK { return nil }
            throw StoreError(.leaseUnavailable(file: file, .current(error)), path: path)
        }
        return DeliveryLease { close(descriptor) }
    }

    /// `<store>.lease-<subscriber>`, the name's bytes other than letters, digits,
    /// `.`, `_` and `-` written as `%XX`.
    static func leasePath(store: String, subscriber: String) -> String {
        var name = ""
        for byte in subscriber.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"):
                name.append(Character(Unicode.Scalar(byte)))
            default:
                let hex = Array("0123456789ABCDEF")
                name += "%" + String(hex[Int(byte >> 4)]) + String(hex[Int(byte & 0xF)])
            }
        }
        return "\(store).lease-\(name)"
    }
}
