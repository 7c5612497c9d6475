import CNATSLoader
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One JetStream message, owned: destroyed with this value.
///
/// `@unchecked Sendable`: the message is only read (its subject, body, metadata) or
/// acknowledged, and libnats allows both from any thread; it is destroyed only in
/// `deinit`. The connection it came on is kept alive by `owner`.
package final class NATSMessage: @unchecked Sendable {
    private let message: OpaquePointer
    private let owner: NATSConnection
    /// The generation of the subscription it came on (`DurableConsumer`: which stream of
    /// the name it belongs to); 0 elsewhere.
    package let generation: Int

    init(_ message: OpaquePointer, owner: NATSConnection, generation: Int = 0) {
        self.message = message
        self.owner = owner
        self.generation = generation
    }

    deinit { nats.pointee.natsMsg_Destroy(message) }

    package var subject: String { nats.pointee.natsMsg_GetSubject(message).map { String(cString: $0) } ?? "" }

    package var body: [UInt8] {
        let count = Int(nats.pointee.natsMsg_GetDataLength(message))
        guard count > 0, let data = nats.pointee.natsMsg_GetData(message) else { return [] }
        return data.withMemoryRebound(to: UInt8.self, capacity: count) { Array(UnsafeBufferPointer(start: $0, count: count)) }
    }

    package var text: String { String(decoding: body, as: UTF8.self) }

    /// A header's value.
    package func header(_ key: String) -> String? {
        var value: UnsafePointer<CChar>?
        let status = key.withCString { nats.pointee.natsMsgHeader_Get(message, $0, &value) }
        guard status == NATS_OK, let value else { return nil }
        return String(cString: value)
    }

    /// The stream's view of it: its stream sequence, how many remain for the consumer,
    /// when it was stored.
    package var metadata: (streamSequence: UInt64, pending: UInt64, stored: Date, delivered: UInt64)? {
        var meta: UnsafeMutablePointer<jsMsgMetaData>?
        guard nats.pointee.natsMsg_GetMetaData(&meta, message) == NATS_OK, let meta else { return nil }
        defer { nats.pointee.jsMsgMetaData_Destroy(meta) }
        return (
            meta.pointee.Sequence.Stream, meta.pointee.NumPending,
            Date(timeIntervalSince1970: Double(meta.pointee.Timestamp) / 1e9), meta.pointee.NumDelivered
        )
    }

    /// Acknowledges it and waits for the server to confirm (a durable consumer's
    /// explicit ack): after this returns it is not delivered again.
    package func acknowledge() throws(NATSError) {
        var jsError = jsErrCode(0)
        let status = nats.pointee.natsMsg_AckSync(message, nil, &jsError)
        guard status == NATS_OK else { throw .from(status, doing: "acknowledging \(subject)", jsError: jsError) }
    }

    /// Tells the server it is still being worked on: its ack wait starts again.
    package func inProgress() {
        _ = nats.pointee.natsMsg_InProgress(message, nil)
    }

    /// Refuses it for good: the server never sends it again (a body that is not an event).
    package func terminate() {
        _ = nats.pointee.natsMsg_Term(message, nil)
    }

    /// Asks for it to be sent again after `delay` seconds.
    package func notAcknowledged(delay: Double) {
        _ = nats.pointee.natsMsg_NakWithDelay(message, Int64(delay * 1000), nil)
    }
}
