import CNATSLoader
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How a durable consumer `juice fleet deliver` uses is set up.
public struct ConsumerSettings: Sendable, Equatable {
    /// Where a new consumer starts in the stream (NATS `deliver_policy`).
    public enum Start: String, Sendable, Equatable, CaseIterable {
        /// Every message the stream holds (NATS `all`).
        case all
        /// Only messages stored after the consumer is created (NATS `new`).
        case new
    }

    /// The subject prefix the machines publish under.
    public var prefix: String
    /// The subjects it takes: `<prefix>.>`.
    public var filter: String { "\(prefix).>" }
    /// Seconds the server waits for an ack before it sends a message again (NATS `ack_wait`).
    public var ackWait: Double
    /// Messages sent and not yet acknowledged, at most (NATS `max_ack_pending`).
    public var maxAckPending: Int
    /// Where it starts when it is created; an existing consumer keeps its place.
    public var start: Start

    public init(prefix: String, ackWait: Double, maxAckPending: Int, start: Start) {
        self.prefix = prefix
        self.ackWait = ackWait
        self.maxAckPending = maxAckPending
        self.start = start
    }
}

/// A durable consumer as the server describes it.
public struct ConsumerState: Sendable, Equatable {
    /// Messages it has not delivered yet.
    public let pending: UInt64
    /// Messages delivered and not acknowledged yet.
    public let ackPending: Int64
    /// The stream sequence at and below which every message is acknowledged.
    public let ackFloor: UInt64
    /// Its ack wait, in seconds.
    public let ackWait: Double
    /// Its `max_ack_pending`.
    public let maxAckPending: Int64

    /// Every message it has not seen acknowledged: what its subscriber lags behind.
    public var lag: UInt64 { pending + UInt64(max(0, ackPending)) }

    init(_ info: jsConsumerInfo) {
        pending = info.NumPending
        ackPending = info.NumAckPending
        ackFloor = info.AckFloor.Stream
        ackWait = Double(info.Config?.pointee.AckWait ?? 0) / 1e9
        maxAckPending = info.Config?.pointee.MaxAckPending ?? 0
    }
}

extension NATSConnection {
    /// Consumer `name` of `stream`, or `nil` when it does not exist. Throws `.noStream`
    /// when the stream does not exist.
    public func consumer(_ name: String, of stream: String) throws(NATSError) -> ConsumerState? {
        let strings = CStrings()
        var info: UnsafeMutablePointer<jsConsumerInfo>?
        var jsError = jsErrCode(0)
        let status = nats.pointee.js_GetConsumerInfo(&info, jetStream, strings.make(stream), strings.make(name), nil, &jsError)
        if status == NATS_NOT_FOUND, jsError.rawValue != 10059 { return nil }
        guard status == NATS_OK, let info else {
            throw .from(status, doing: "looking up consumer \(name) of stream \(stream)", jsError: jsError)
        }
        defer { nats.pointee.jsConsumerInfo_Destroy(info) }
        return ConsumerState(info.pointee)
    }

    /// Makes sure the durable consumer `name` of `stream` exists, created with
    /// `settings` when missing (explicit ack; from just after stream sequence
    /// `resumingAfter` when given, else from `settings.start`), and that its ack wait
    /// and `max_ack_pending` are `settings`'. It lives until someone deletes it:
    /// nothing this client does when it lets go deletes it.
    /// - Returns: the consumer, and whether this call created it.
    public func ensureConsumer(
        _ name: String, of stream: String, settings: ConsumerSettings, resumingAfter: UInt64? = nil
    ) throws(NATSError) -> (state: ConsumerState, created: Bool) {
        if let existing = try consumer(name, of: stream) {
            guard abs(existing.ackWait - settings.ackWait) > 0.001 || existing.maxAckPending != Int64(settings.maxAckPending) else {
                return (existing, false)
            }
            return (try putConsumer(name, of: stream, settings: settings, resumingAfter: nil, creating: false), false)
        }
        do {
            return (try putConsumer(name, of: stream, settings: settings, resumingAfter: resumingAfter, creating: true), true)
        } catch {
            // Another deliverer created it meanwhile: use theirs.
            if let theirs = try consumer(name, of: stream) { return (theirs, false) }
            throw error
        }
    }

    private func putConsumer(
        _ name: String, of stream: String, settings: ConsumerSettings, resumingAfter: UInt64?, creating: Bool
    ) throws(NATSError) -> ConsumerState {
        let strings = CStrings()
        var config = jsConsumerConfig()
        _ = nats.pointee.jsConsumerConfig_Init(&config)
        config.Durable = strings.make(name)
        config.FilterSubject = strings.make(settings.filter)
        config.AckPolicy = js_AckExplicit
        config.AckWait = Int64((settings.ackWait * 1e9).rounded())
        config.MaxAckPending = Int64(settings.maxAckPending)
        if let resumingAfter {
            config.DeliverPolicy = js_DeliverByStartSequence
            config.OptStartSeq = resumingAfter + 1
        } else {
            config.DeliverPolicy = settings.start == .new ? js_DeliverNew : js_DeliverAll
        }
        var info: UnsafeMutablePointer<jsConsumerInfo>?
        var jsError = jsErrCode(0)
        let status =
            creating
            ? nats.pointee.js_AddConsumer(&info, jetStream, strings.make(stream), &config, nil, &jsError)
            : nats.pointee.js_UpdateConsumer(&info, jetStream, strings.make(stream), &config, nil, &jsError)
        guard status == NATS_OK, let info else {
            let doing = creating ? "creating consumer \(name) of stream \(stream)" : "setting ack wait and max_ack_pending of consumer \(name)"
            throw .from(status, doing: doing, jsError: jsError)
        }
        defer { nats.pointee.jsConsumerInfo_Destroy(info) }
        return ConsumerState(info.pointee)
    }

    /// Deletes consumer `name` of `stream` (what `nats consumer rm` does).
    public func deleteConsumer(_ name: String, of stream: String) throws(NATSError) {
        let strings = CStrings()
        var jsError = jsErrCode(0)
        let status = nats.pointee.js_DeleteConsumer(jetStream, strings.make(stream), strings.make(name), nil, &jsError)
        guard status == NATS_OK else { throw .from(status, doing: "deleting consumer \(name) of stream \(stream)", jsError: jsError) }
    }

    /// A pull subscription bound to the existing durable consumer `name` of `stream`.
    /// Letting it go (`stop()`, or its end of life) leaves the consumer on the server.
    func bind(_ name: String, of stream: String, filter: String) throws(NATSError) -> NATSSubscription {
        let strings = CStrings()
        var options = jsSubOptions()
        _ = nats.pointee.jsSubOptions_Init(&options)
        options.Stream = strings.make(stream)
        options.Consumer = strings.make(name)
        var subscription: OpaquePointer?
        var jsError = jsErrCode(0)
        let status = nats.pointee.js_PullSubscribe(
            &subscription, jetStream, strings.make(filter), strings.make(name), nil, &options, &jsError)
        guard status == NATS_OK, let subscription else {
            throw .from(status, doing: "opening consumer \(name) of stream \(stream)", jsError: jsError)
        }
        return NATSSubscription(subscription, owner: self)
    }

    /// The message at `sequence` of `stream`, or `nil` when the stream holds none there
    /// (deleted, or aged out).
    public func message(at sequence: UInt64, of stream: String) throws(NATSError) -> NATSMessage? {
        let strings = CStrings()
        var message: OpaquePointer?
        var jsError = jsErrCode(0)
        let status = nats.pointee.js_GetMsg(&message, jetStream, strings.make(stream), sequence, nil, &jsError)
        if status == NATS_NOT_FOUND, jsError.rawValue != 10059 { return nil }
        guard status == NATS_OK, let message else {
            throw .from(status, doing: "reading message \(sequence) of stream \(stream)", jsError: jsError)
        }
        return NATSMessage(message, owner: self)
    }
}
