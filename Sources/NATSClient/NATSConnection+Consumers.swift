import CNATSLoader
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How a durable consumer `juice fleet deliver` uses is set up.
package struct ConsumerSettings: Sendable, Equatable {
    /// Where a new consumer starts in the stream (NATS `deliver_policy`).
    package enum Start: String, Sendable, Equatable, CaseIterable {
        /// Every message the stream holds (NATS `all`).
        case all
        /// Only messages stored after the consumer is created (NATS `new`).
        case new
    }

    /// The subject prefix the machines publish under.
    package var prefix: String
    /// The subjects it takes: `<prefix>.>`.
    package var filter: String { "\(prefix).>" }
    /// Seconds the server waits for an ack before it sends a message again (NATS `ack_wait`).
    package var ackWait: Double
    /// Messages sent and not yet acknowledged, at most (NATS `max_ack_pending`).
    package var maxAckPending: Int
    /// Where it starts when it is created; an existing consumer keeps its place.
    package var start: Start
    /// The largest message a reader takes; a larger one is refused unread (`fleet.maxMessageBytes`).
    package var maxMessageBytes: Int

    package init(prefix: String, ackWait: Double, maxAckPending: Int, start: Start, maxMessageBytes: Int) {
        self.maxMessageBytes = maxMessageBytes
        self.prefix = prefix
        self.ackWait = ackWait
        self.maxAckPending = maxAckPending
        self.start = start
    }
}

/// What `NATSConnection.ensureConsumer` found or made.
package struct EnsuredConsumer: Sendable {
    package let state: ConsumerState
    /// Whether that call created it.
    package let created: Bool
    /// One line on what an existing consumer kept of its own against the settings, if anything.
    package let note: String?
}

/// A durable consumer as the server describes it.
package struct ConsumerState: Sendable, Equatable {
    /// Messages it has not delivered yet.
    package let pending: UInt64
    /// Messages delivered and not acknowledged yet.
    package let ackPending: Int64
    /// The stream sequence at and below which every message is acknowledged.
    package let ackFloor: UInt64
    /// Its ack wait, in seconds.
    package let ackWait: Double
    /// Its `max_ack_pending`.
    package let maxAckPending: Int64
    /// Its deliver policy when it is `all` or `new`; `nil` for another (a consumer
    /// created again from a stream sequence).
    package let deliverPolicy: ConsumerSettings.Start?
    /// Pull requests waiting on it now: a reader (`juice fleet deliver`) is fetching.
    package let waiting: Int64

    /// Every message it has not seen acknowledged: what its subscriber lags behind.
    package var lag: UInt64 { pending + UInt64(max(0, ackPending)) }

    init(_ info: jsConsumerInfo) {
        pending = info.NumPending
        ackPending = info.NumAckPending
        ackFloor = info.AckFloor.Stream
        ackWait = Double(info.Config?.pointee.AckWait ?? 0) / 1e9
        maxAckPending = info.Config?.pointee.MaxAckPending ?? 0
        let policy = info.Config?.pointee.DeliverPolicy
        deliverPolicy = policy == js_DeliverAll ? .all : policy == js_DeliverNew ? .new : nil
        waiting = info.NumWaiting
    }
}

extension NATSConnection {
    /// Consumer `name` of `stream`, or `nil` when it does not exist. Throws `.noStream`
    /// when the stream does not exist.
    package func consumer(_ name: String, of stream: String) throws(NATSError) -> ConsumerState? {
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
    ///
    /// An existing consumer keeps what NATS does not let change (its deliver policy and
    /// start): only its ack wait and `max_ack_pending` are set, on its own configuration.
    /// A deliver policy other than `settings.start`, or an update the server refuses, is
    /// told in `note` (one line), never thrown: the consumer is used as it is.
    package func ensureConsumer(
        _ name: String, of stream: String, settings: ConsumerSettings, resumingAfter: UInt64? = nil
    ) throws(NATSError) -> EnsuredConsumer {
        if let existing = try consumer(name, of: stream) { return try adjust(existing, name, of: stream, to: settings) }
        do {
            return EnsuredConsumer(
                state: try putConsumer(name, of: stream, settings: settings, resumingAfter: resumingAfter), created: true, note: nil)
        } catch {
            // Another deliverer created it meanwhile: use theirs.
            if let theirs = try consumer(name, of: stream) { return try adjust(theirs, name, of: stream, to: settings) }
            throw error
        }
    }

    /// `existing` with the ack wait and `max_ack_pending` of `settings`, where NATS lets them change.
    private func adjust(
        _ existing: ConsumerState, _ name: String, of stream: String, to settings: ConsumerSettings
    ) throws(NATSError) -> EnsuredConsumer {
        var notes: [String] = []
        var state = existing
        let ackWaitDiffers = abs(existing.ackWait - settings.ackWait) > 0.001
        if ackWaitDiffers || existing.maxAckPending != Int64(settings.maxAckPending) {
            do {
                state = try updateConsumer(name, of: stream, ackWait: settings.ackWait, maxAckPending: settings.maxAckPending)
            } catch {
                if error.kind == .unavailable || error.kind == .timeout { throw error }
                notes.append(
                    "keeps ack wait \(Self.number(existing.ackWait)) s and max_ack_pending \(existing.maxAckPending) "
                        + "(the server refused fleet.ackWait \(Self.number(settings.ackWait)) s and fleet.maxAckPending \(settings.maxAckPending): \(error.message))"
                )
            }
        }
        if let policy = existing.deliverPolicy, policy != settings.start {
            notes.append(
                "keeps deliver policy \(policy.rawValue), not fleet.deliverPolicy \(settings.start.rawValue): NATS cannot change it "
                    + "on an existing consumer, and the consumer keeps its place (delete it, nats consumer rm, to start one anew)")
        }
        guard !notes.isEmpty else { return EnsuredConsumer(state: state, created: false, note: nil) }
        return EnsuredConsumer(
            state: state, created: false, note: "consumer \(name) of stream \(stream) " + notes.joined(separator: "; it ") + "; delivery goes on")
    }

    /// `value` without a fraction when it has none: `30`, `2.5`.
    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }

    /// Sets the ack wait and `max_ack_pending` of consumer `name` on its own configuration
    /// (the rest, its deliver policy and start above all, as the server has them).
    private func updateConsumer(_ name: String, of stream: String, ackWait: Double, maxAckPending: Int) throws(NATSError) -> ConsumerState {
        let strings = CStrings()
        var info: UnsafeMutablePointer<jsConsumerInfo>?
        var jsError = jsErrCode(0)
        var status = nats.pointee.js_GetConsumerInfo(&info, jetStream, strings.make(stream), strings.make(name), nil, &jsError)
        guard status == NATS_OK, let info, let config = info.pointee.Config else {
            if let info { nats.pointee.jsConsumerInfo_Destroy(info) }
            throw .from(status, doing: "looking up consumer \(name) of stream \(stream)", jsError: jsError)
        }
        defer { nats.pointee.jsConsumerInfo_Destroy(info) }
        config.pointee.AckWait = Int64((ackWait * 1e9).rounded())
        config.pointee.MaxAckPending = Int64(maxAckPending)
        var updated: UnsafeMutablePointer<jsConsumerInfo>?
        status = nats.pointee.js_UpdateConsumer(&updated, jetStream, strings.make(stream), config, nil, &jsError)
        guard status == NATS_OK, let updated else {
            throw .from(status, doing: "setting ack wait and max_ack_pending of consumer \(name)", jsError: jsError)
        }
        defer { nats.pointee.jsConsumerInfo_Destroy(updated) }
        return ConsumerState(updated.pointee)
    }

    /// Where a consumer is made to start again (`rewindConsumer`).
    package enum RewindPoint: Sendable, Equatable {
        /// At the first message stored at or after this time.
        case time(Date)
        /// At this stream sequence.
        case streamSequence(UInt64)
    }

    /// Deletes consumer `name` of `stream` (when it exists) and creates it again with
    /// `settings`, starting at `point`: every message from there is sent again, to
    /// whichever reader binds to it next (`juice subscribers rewind NAME@fleet`).
    package func rewindConsumer(
        _ name: String, of stream: String, settings: ConsumerSettings, to point: RewindPoint
    ) throws(NATSError) -> ConsumerState {
        if try consumer(name, of: stream) != nil { try deleteConsumer(name, of: stream) }
        return try putConsumer(name, of: stream, settings: settings, resumingAfter: nil, rewoundTo: point)
    }

    private func putConsumer(
        _ name: String, of stream: String, settings: ConsumerSettings, resumingAfter: UInt64?, rewoundTo point: RewindPoint? = nil
    ) throws(NATSError) -> ConsumerState {
        let strings = CStrings()
        var config = jsConsumerConfig()
        _ = nats.pointee.jsConsumerConfig_Init(&config)
        config.Durable = strings.make(name)
        config.FilterSubject = strings.make(settings.filter)
        config.AckPolicy = js_AckExplicit
        config.AckWait = Int64((settings.ackWait * 1e9).rounded())
        config.MaxAckPending = Int64(settings.maxAckPending)
        switch (point, resumingAfter) {
        case (.time(let date)?, _):
            config.DeliverPolicy = js_DeliverByStartTime
            config.OptStartTime = Int64((date.timeIntervalSince1970 * 1e9).rounded())
        case (.streamSequence(let sequence)?, _):
            config.DeliverPolicy = js_DeliverByStartSequence
            config.OptStartSeq = max(1, sequence)
        case (nil, let after?):
            config.DeliverPolicy = js_DeliverByStartSequence
            config.OptStartSeq = after + 1
        case (nil, nil):
            config.DeliverPolicy = settings.start == .new ? js_DeliverNew : js_DeliverAll
        }
        var info: UnsafeMutablePointer<jsConsumerInfo>?
        var jsError = jsErrCode(0)
        let status = nats.pointee.js_AddConsumer(&info, jetStream, strings.make(stream), &config, nil, &jsError)
        guard status == NATS_OK, let info else { throw .from(status, doing: "creating consumer \(name) of stream \(stream)", jsError: jsError) }
        defer { nats.pointee.jsConsumerInfo_Destroy(info) }
        return ConsumerState(info.pointee)
    }

    /// Deletes consumer `name` of `stream` (what `nats consumer rm` does).
    package func deleteConsumer(_ name: String, of stream: String) throws(NATSError) {
        let strings = CStrings()
        var jsError = jsErrCode(0)
        let status = nats.pointee.js_DeleteConsumer(jetStream, strings.make(stream), strings.make(name), nil, &jsError)
        guard status == NATS_OK else { throw .from(status, doing: "deleting consumer \(name) of stream \(stream)", jsError: jsError) }
    }

    /// A pull subscription bound to the existing durable consumer `name` of `stream`.
    /// Letting it go (`stop()`, or its end of life) leaves the consumer on the server.
    /// Its messages carry `generation`.
    func bind(_ name: String, of stream: String, filter: String, generation: Int = 0) throws(NATSError) -> NATSSubscription {
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
        return NATSSubscription(subscription, owner: self, generation: generation)
    }

    /// The message at `sequence` of `stream`, or `nil` when the stream holds none there
    /// (deleted, or aged out).
    package func message(at sequence: UInt64, of stream: String) throws(NATSError) -> NATSMessage? {
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
