import CNATSLoader

/// A subscription (ordered reader or durable pull consumer).
///
/// `@unchecked Sendable`: libnats allows `NextMsg`/`Fetch` and `Unsubscribe` from
/// different threads (an unsubscribe makes a waiting call return); the pointer is set
/// once and destroyed only in `deinit`.
package final class NATSSubscription: @unchecked Sendable {
    private let subscription: OpaquePointer
    private let owner: NATSConnection
    /// Given to every message fetched (`NATSMessage.generation`).
    private let generation: Int

    init(_ subscription: OpaquePointer, owner: NATSConnection, generation: Int = 0) {
        self.subscription = subscription
        self.owner = owner
        self.generation = generation
    }

    deinit {
        nats.pointee.natsSubscription_Destroy(subscription)
    }

    /// Ends it: a call waiting in `next` or `fetch` returns.
    package func stop() {
        _ = nats.pointee.natsSubscription_Unsubscribe(subscription)
    }

    /// The next message of an ordered reader, or `nil` when none came within `timeout` seconds.
    package func next(timeout: Double) throws(NATSError) -> NATSMessage? {
        var message: OpaquePointer?
        let status = nats.pointee.natsSubscription_NextMsg(&message, subscription, Int64(timeout * 1000))
        if status == NATS_TIMEOUT { return nil }
        guard status == NATS_OK, let message else { throw .from(status, doing: "reading the stream") }
        return NATSMessage(message, owner: owner)
    }

    /// Up to `batch` messages of a pull consumer; empty when none came within `timeout` seconds.
    package func fetch(batch: Int, timeout: Double) throws(NATSError) -> [NATSMessage] {
        var list = natsMsgList()
        var jsError = jsErrCode(0)
        let status = nats.pointee.natsSubscription_Fetch(&list, subscription, Int32(batch), Int64(timeout * 1000), &jsError)
        if status == NATS_TIMEOUT { return [] }
        guard status == NATS_OK else { throw .from(status, doing: "fetching from the consumer", jsError: jsError) }
        var messages: [NATSMessage] = []
        if let items = list.Msgs {
            for index in 0..<Int(list.Count) {
                if let message = items[index] {
                    messages.append(NATSMessage(message, owner: owner, generation: generation))
                    items[index] = nil  // owned by the NATSMessage now; the list must not destroy it
                }
            }
        }
        nats.pointee.natsMsgList_Destroy(&list)
        return messages
    }
}
