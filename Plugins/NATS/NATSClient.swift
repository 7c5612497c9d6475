import CNATS
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
import Locking

/// A libnats failure as one line: what was being done, libnats' own text, and what to
/// do about it. Never contains a token or a credential.
public struct NATSError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, in one line.
    public let message: String
    /// The kind of failure, for callers that decide what to do (retry, disable, exit 78).
    public let kind: Kind

    public enum Kind: Sendable, Equatable {
        /// The server could not be reached or did not answer in time: try again later.
        case unavailable
        /// The server refused who we are (token, credentials).
        case authorization
        /// The stream exists with a configuration this client cannot use.
        case streamMismatch
        /// A subscription or fetch found nothing before its timeout.
        case timeout
        /// Anything else.
        case other
    }

    public init(_ message: String, kind: Kind) {
        self.message = message
        self.kind = kind
    }

    public var description: String { message }

    /// `status` while `doing`, with libnats' last error text for this thread.
    static func from(_ status: natsStatus, doing: String, jsError: jsErrCode = jsErrCode(0)) -> NATSError {
        let text = String(cString: natsStatus_GetText(status))
        var detail = ""
        if let last = nats_GetLastError(nil) {
            // "(conn.c:2088): No server available for connection": the text without its source position.
            var lastText = String(cString: last)
            if lastText.hasPrefix("("), let end = lastText.firstRange(of: "): ") { lastText = String(lastText[end.upperBound...]) }
            if !lastText.isEmpty, lastText != text { detail = lastText }
        }
        let kind: Kind
        let advice: String
        switch status {
        case NATS_NO_SERVER, NATS_CONNECTION_CLOSED, NATS_CONNECTION_DISCONNECTED, NATS_STALE_CONNECTION, NATS_IO_ERROR,
            NATS_NO_RESPONDERS:
            kind = .unavailable
            advice = "is nats-server -js running there?"
        case NATS_TIMEOUT:
            kind = .timeout
            advice = "the server did not answer in time"
        case NATS_NOT_PERMITTED:
            kind = .authorization
            advice = "check the token or the credentials file"
        default:
            if detail.lowercased().contains("authorization") || text.lowercased().contains("authorization") {
                kind = .authorization
                advice = "check the token or the credentials file"
            } else {
                kind = .other
                advice = ""
            }
        }
        var line = "\(doing): \(text)"
        if !detail.isEmpty { line += " (\(Self.oneLine(detail)))" }
        if jsError.rawValue != 0 { line += " [JetStream error \(jsError.rawValue)]" }
        if !advice.isEmpty { line += "; \(advice)" }
        return NATSError(line, kind: kind)
    }

    private static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline).first.map { String($0.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed()) }
            ?? ""
    }
}

/// How to reach a NATS server or cluster.
public struct NATSOptions: Sendable {
    /// `nats://host:port` URLs (several for a cluster).
    public var servers: [String]
    /// An authentication token; never printed.
    public var token: String?
    /// A `.creds` file (user JWT and seed).
    public var credentialsFile: String?
    /// How long connecting, and each request (a publish's PubAck, a stream lookup), may take.
    public var timeout: Double
    /// Whether a lost connection is re-established in the background (a long-running
    /// reader); a publisher that reconnects on its next attempt may say `false`.
    public var reconnects: Bool
    /// The connection's name, as the server's monitoring shows it.
    public var name: String
    /// How many asynchronous publishes may wait for their PubAck at once.
    public var maxOutstandingAcks: Int = 256

    public init(
        servers: [String], token: String? = nil, credentialsFile: String? = nil, timeout: Double = 5,
        reconnects: Bool = true, name: String = "juice"
    ) {
        self.servers = servers
        self.token = token
        self.credentialsFile = credentialsFile
        self.timeout = timeout
        self.reconnects = reconnects
        self.name = name
    }

    /// The servers as they may be shown (no user or password).
    public var displayServers: String {
        servers.map { server in
            guard var parts = URLComponents(string: server) else { return server }
            parts.user = nil
            parts.password = nil
            return parts.string ?? server
        }.joined(separator: ",")
    }
}

/// C strings that live as long as this value: for libnats calls that take `const char *`
/// arrays and fields.
final class CStrings {
    private(set) var pointers: [UnsafeMutablePointer<CChar>] = []

    func make(_ text: String) -> UnsafePointer<CChar> {
        let pointer = strdup(text)!
        pointers.append(pointer)
        return UnsafePointer(pointer)
    }

    /// A `const char **` array of `texts`, alive as long as this value.
    func array(_ texts: [String]) -> UnsafeMutablePointer<UnsafePointer<CChar>?> {
        let array = UnsafeMutablePointer<UnsafePointer<CChar>?>.allocate(capacity: max(1, texts.count))
        for (index, text) in texts.enumerated() { array[index] = make(text) }
        arrays.append(array)
        return array
    }

    private var arrays: [UnsafeMutablePointer<UnsafePointer<CChar>?>] = []

    deinit {
        for pointer in pointers { free(pointer) }
        for array in arrays { array.deallocate() }
    }
}

/// One connection to NATS with its JetStream context.
///
/// `@unchecked Sendable`: libnats documents `natsConnection` and `jsCtx` as safe to use
/// from any thread at once; the pointers are set once in `init` and never changed; they
/// are destroyed only in `deinit`, when no other reference (so no other call) exists.
/// `close()` only closes the connection (libnats allows that concurrently with calls,
/// which then fail with `NATS_CONNECTION_CLOSED`).
public final class NATSConnection: @unchecked Sendable {
    private let connection: OpaquePointer
    private let jetStream: OpaquePointer
    private let options: OpaquePointer
    /// The request timeout in milliseconds.
    let timeoutMilliseconds: Int64
    /// Where libnats' threads leave the PubAcks of asynchronous publishes.
    private let acks: PubAcks
    public let displayServers: String

    /// Connects (failing within `options.timeout` when no server answers) and opens JetStream.
    public init(_ options: NATSOptions) throws(NATSError) {
        displayServers = options.displayServers
        timeoutMilliseconds = Int64((options.timeout * 1000).rounded())
        let strings = CStrings()
        var created: OpaquePointer?
        var status = natsOptions_Create(&created)
        guard status == NATS_OK, let natsOptions = created else { throw .from(status, doing: "setting up the NATS client") }
        let doing = "connecting to \(displayServers)"
        func check(_ status: natsStatus, _ what: String) throws(NATSError) {
            guard status == NATS_OK else {
                natsOptions_Destroy(natsOptions)
                throw .from(status, doing: what)
            }
        }
        try check(natsOptions_SetServers(natsOptions, strings.array(options.servers), Int32(options.servers.count)), doing)
        try check(natsOptions_SetTimeout(natsOptions, timeoutMilliseconds), doing)
        try check(natsOptions_SetName(natsOptions, strings.make(options.name)), doing)
        try check(natsOptions_SetAllowReconnect(natsOptions, options.reconnects), doing)
        if options.reconnects {
            try check(natsOptions_SetMaxReconnect(natsOptions, -1), doing)
            try check(natsOptions_SetReconnectWait(natsOptions, 250), doing)
        }
        if let token = options.token { try check(natsOptions_SetToken(natsOptions, strings.make(token)), doing) }
        if let file = options.credentialsFile {
            try check(
                natsOptions_SetUserCredentialsFromFiles(natsOptions, strings.make(file), nil),
                "reading the credentials file \(file)")
        }
        var connected: OpaquePointer?
        status = natsConnection_Connect(&connected, natsOptions)
        guard status == NATS_OK, let connection = connected else {
            natsOptions_Destroy(natsOptions)
            throw .from(status, doing: doing)
        }
        // Retained for good, never released: libnats may call the handler on its own
        // thread until the connection is destroyed, so it must outlive this object
        // (one small object per connection).
        let acks = PubAcks()
        var jsOptions = jsOptions()
        jsOptions_Init(&jsOptions)
        jsOptions.Wait = timeoutMilliseconds
        jsOptions.PublishAsync.MaxPending = Int64(max(1, options.maxOutstandingAcks))
        jsOptions.PublishAsync.AckHandler = pubAckHandler
        jsOptions.PublishAsync.AckHandlerClosure = Unmanaged.passRetained(acks).toOpaque()
        jsOptions.PublishAsync.StallWait = timeoutMilliseconds
        var context: OpaquePointer?
        status = natsConnection_JetStream(&context, connection, &jsOptions)
        guard status == NATS_OK, let context else {
            natsConnection_Destroy(connection)
            natsOptions_Destroy(natsOptions)
            throw .from(status, doing: "opening JetStream on \(displayServers)")
        }
        self.connection = connection
        self.jetStream = context
        self.options = natsOptions
        self.acks = acks
    }

    deinit {
        jsCtx_Destroy(jetStream)
        natsConnection_Destroy(connection)
        natsOptions_Destroy(options)
    }

    /// Closes the connection; later calls fail.
    public func close() {
        natsConnection_Close(connection)
    }

    /// Whether the connection is up now (not closed, not reconnecting).
    public var isConnected: Bool {
        natsConnection_Status(connection) == NATS_CONN_STATUS_CONNECTED
    }

    // MARK: Streams

    /// Makes sure stream `name` exists and takes `subjects`: creates it (file storage,
    /// `replicas`) when missing; throws `.streamMismatch` when it exists without them.
    public func ensureStream(_ name: String, subjects: String, replicas: Int) throws(NATSError) {
        var info: UnsafeMutablePointer<jsStreamInfo>?
        var jsError = jsErrCode(0)
        let strings = CStrings()
        var status = js_GetStreamInfo(&info, jetStream, strings.make(name), nil, &jsError)
        if status == NATS_OK, let info {
            defer { jsStreamInfo_Destroy(info) }
            var existing: [String] = []
            if let config = info.pointee.Config, let list = config.pointee.Subjects {
                for index in 0..<Int(config.pointee.SubjectsLen) {
                    if let subject = list[index] { existing.append(String(cString: subject)) }
                }
            }
            guard existing.contains(subjects) || existing.contains(">") else {
                throw NATSError(
                    "stream \(name) exists with subjects \(existing.joined(separator: ", ")), not \(subjects); "
                        + "set another \"stream\" or \"subjectPrefix\", or change the stream (nats stream edit)",
                    kind: .streamMismatch)
            }
            return
        }
        guard status == NATS_NOT_FOUND else { throw .from(status, doing: "looking up stream \(name)", jsError: jsError) }
        var config = jsStreamConfig()
        jsStreamConfig_Init(&config)
        config.Name = strings.make(name)
        config.Subjects = strings.array([subjects])
        config.SubjectsLen = 1
        config.Storage = js_FileStorage
        config.Replicas = Int64(replicas)
        info = nil
        jsError = jsErrCode(0)
        status = js_AddStream(&info, jetStream, &config, nil, &jsError)
        if let info { jsStreamInfo_Destroy(info) }
        guard status == NATS_OK else {
            // 10065: subjects overlap with another stream's; 10058: the name is taken.
            if jsError.rawValue == 10065 || jsError.rawValue == 10058 {
                throw NATSError(
                    "creating stream \(name) for \(subjects): another stream already takes these subjects, or the name "
                        + "is in use with other settings [JetStream error \(jsError.rawValue)]; set another \"stream\" or \"subjectPrefix\"",
                    kind: .streamMismatch)
            }
            throw .from(status, doing: "creating stream \(name) (\(subjects), \(replicas) replica(s))", jsError: jsError)
        }
    }

    /// How many messages stream `name` holds.
    public func streamMessageCount(_ name: String) throws(NATSError) -> UInt64 {
        var info: UnsafeMutablePointer<jsStreamInfo>?
        var jsError = jsErrCode(0)
        let strings = CStrings()
        let status = js_GetStreamInfo(&info, jetStream, strings.make(name), nil, &jsError)
        guard status == NATS_OK, let info else { throw .from(status, doing: "looking up stream \(name)", jsError: jsError) }
        defer { jsStreamInfo_Destroy(info) }
        return info.pointee.State.Msgs
    }

    /// Deletes stream `name` and everything it holds.
    public func deleteStream(_ name: String) throws(NATSError) {
        var jsError = jsErrCode(0)
        let strings = CStrings()
        let status = js_DeleteStream(jetStream, strings.make(name), nil, &jsError)
        guard status == NATS_OK else { throw .from(status, doing: "deleting stream \(name)", jsError: jsError) }
    }

    // MARK: Publishing

    /// Publishes `body` to `subject` with `headers` and returns when JetStream has
    /// stored it (the PubAck), or throws. `messageID` goes in `Nats-Msg-Id`: the stream
    /// drops a second publish with the same id within its duplicate window.
    /// - Returns: whether the stream reported the message a duplicate.
    @discardableResult
    public func publish(
        subject: String, body: [UInt8], headers: [(String, String)], messageID: String
    ) throws(NATSError) -> Bool {
        let strings = CStrings()
        var created: OpaquePointer?
        var status = body.withUnsafeBufferPointer { buffer in
            natsMsg_Create(
                &created, strings.make(subject), nil, buffer.baseAddress.map { UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self) },
                Int32(buffer.count))
        }
        guard status == NATS_OK, let message = created else { throw .from(status, doing: "preparing a message for \(subject)") }
        defer { natsMsg_Destroy(message) }
        for (key, value) in headers {
            status = natsMsgHeader_Set(message, strings.make(key), strings.make(value))
            guard status == NATS_OK else { throw .from(status, doing: "setting header \(key)") }
        }
        var options = jsPubOptions()
        jsPubOptions_Init(&options)
        options.MsgId = strings.make(messageID)
        options.MaxWait = timeoutMilliseconds
        var ack: UnsafeMutablePointer<jsPubAck>?
        var jsError = jsErrCode(0)
        status = js_PublishMsg(&ack, jetStream, message, &options, &jsError)
        defer { if let ack { jsPubAck_Destroy(ack) } }
        guard status == NATS_OK, let ack else { throw .from(status, doing: "publishing to \(subject) on \(displayServers)", jsError: jsError) }
        return ack.pointee.Duplicate
    }

    /// Publishes like `publish` without waiting: the PubAck (or the failure) arrives
    /// later, for `awaitAck(messageID:)`. At most `NATSOptions.maxOutstandingAcks` are
    /// outstanding; beyond that this waits (up to the timeout) for room.
    public func publishAsync(subject: String, body: [UInt8], headers: [(String, String)], messageID: String) throws(NATSError) {
        let strings = CStrings()
        var created: OpaquePointer?
        var status = body.withUnsafeBufferPointer { buffer in
            natsMsg_Create(
                &created, strings.make(subject), nil, buffer.baseAddress.map { UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self) },
                Int32(buffer.count))
        }
        guard status == NATS_OK, let message = created else { throw .from(status, doing: "preparing a message for \(subject)") }
        for (key, value) in headers + [("Nats-Msg-Id", messageID)] {
            status = natsMsgHeader_Set(message, strings.make(key), strings.make(value))
            guard status == NATS_OK else {
                natsMsg_Destroy(message)
                throw .from(status, doing: "setting header \(key)")
            }
        }
        var options = jsPubOptions()
        jsPubOptions_Init(&options)
        options.MsgId = strings.make(messageID)
        options.MaxWait = timeoutMilliseconds
        acks.expect(messageID)
        var pointer: OpaquePointer? = message
        status = js_PublishMsgAsync(jetStream, &pointer, &options)
        // On success libnats owns the message (and set `pointer` to NULL); otherwise it is ours.
        if let left = pointer { natsMsg_Destroy(left) }
        guard status == NATS_OK else {
            acks.forget(messageID)
            throw .from(status, doing: "publishing to \(subject) on \(displayServers)")
        }
    }

    /// Waits for the PubAck of an asynchronous publish: returns whether the stream called
    /// it a duplicate, or throws its failure (also when none came within the timeout).
    @discardableResult
    public func awaitAck(messageID: String) throws(NATSError) -> Bool {
        let deadline = ContinuousClock.now + .milliseconds(timeoutMilliseconds + 500)
        switch acks.wait(for: messageID, until: deadline) {
        case .stored(let duplicate): return duplicate
        case .failed(let error): throw error
        case nil:
            throw NATSError(
                "publishing on \(displayServers): no PubAck within \(Double(timeoutMilliseconds) / 1000) s; the server did not answer in time",
                kind: .timeout)
        }
    }

    /// Forgets every outstanding asynchronous publish (after a failure: they are sent again).
    public func forgetOutstandingAcks() {
        acks.forgetAll()
    }

    // MARK: Reading

    /// Where a reader starts in the stream.
    public enum Start: Sendable {
        case all
        case new
        case since(Date)
        case lastPerSubject
    }

    /// An ordered, unacknowledged reader of `filter` in `stream` (for `fleet watch`
    /// and `fleet stock`): libnats keeps it in order across reconnects.
    public func reader(stream: String, filter: String, start: Start) throws(NATSError) -> NATSSubscription {
        let strings = CStrings()
        var options = jsSubOptions()
        jsSubOptions_Init(&options)
        options.Stream = strings.make(stream)
        options.Ordered = true
        switch start {
        case .all: options.Config.DeliverPolicy = js_DeliverAll
        case .new: options.Config.DeliverPolicy = js_DeliverNew
        case .lastPerSubject: options.Config.DeliverPolicy = js_DeliverLastPerSubject
        case .since(let date):
            options.Config.DeliverPolicy = js_DeliverByStartTime
            options.Config.OptStartTime = Int64(date.timeIntervalSince1970 * 1e9)
        }
        var subscription: OpaquePointer?
        var jsError = jsErrCode(0)
        let status = js_SubscribeSync(&subscription, jetStream, strings.make(filter), nil, &options, &jsError)
        guard status == NATS_OK, let subscription else {
            throw .from(status, doing: "reading \(filter) from stream \(stream)", jsError: jsError)
        }
        return NATSSubscription(subscription, owner: self)
    }

    /// A pull subscription on the durable consumer `durable` of `stream` (created when
    /// missing: explicit ack, `ackWait` seconds before an unacknowledged message is
    /// sent again).
    public func durableConsumer(
        stream: String, filter: String, durable: String, ackWait: Double, maxAckPending: Int
    ) throws(NATSError) -> NATSSubscription {
        let strings = CStrings()
        var options = jsSubOptions()
        jsSubOptions_Init(&options)
        options.Stream = strings.make(stream)
        options.Config.AckPolicy = js_AckExplicit
        options.Config.AckWait = Int64(ackWait * 1e9)
        options.Config.DeliverPolicy = js_DeliverAll
        options.Config.MaxAckPending = Int64(maxAckPending)
        var subscription: OpaquePointer?
        var jsError = jsErrCode(0)
        let status = js_PullSubscribe(&subscription, jetStream, strings.make(filter), strings.make(durable), nil, &options, &jsError)
        guard status == NATS_OK, let subscription else {
            throw .from(status, doing: "opening consumer \(durable) on stream \(stream)", jsError: jsError)
        }
        return NATSSubscription(subscription, owner: self)
    }
}

/// The outcome of one asynchronous publish.
enum PubAckOutcome: Sendable {
    case stored(duplicate: Bool)
    case failed(NATSError)
}

/// The PubAcks of asynchronous publishes, by message id: libnats' thread records them
/// (`pubAckHandler`), the publishing thread waits for the one it needs. Everything is
/// behind one `LockedCondition`.
final class PubAcks: Sendable {
    private struct State {
        var expected: Set<String> = []
        var outcomes: [String: PubAckOutcome] = [:]
    }

    private let state = LockedCondition(State())

    func expect(_ id: String) {
        state.change { state in
            state.expected.insert(id)
            state.outcomes[id] = nil
        }
    }

    func forget(_ id: String) {
        state.change { state in
            state.expected.remove(id)
            state.outcomes[id] = nil
        }
    }

    func forgetAll() {
        state.change { state in
            state.expected.removeAll()
            state.outcomes.removeAll()
        }
    }

    /// Called on libnats' thread. An outcome nobody expects (forgotten) is dropped.
    func record(_ id: String, _ outcome: PubAckOutcome) {
        state.change { state in
            guard state.expected.contains(id) else { return }
            state.outcomes[id] = outcome
        }
    }

    /// The outcome for `id`, taken; `nil` when none came by `deadline`.
    func wait(for id: String, until deadline: ContinuousClock.Instant) -> PubAckOutcome? {
        _ = state.wait(until: deadline) { $0.outcomes[id] != nil }
        return state.change { state in
            state.expected.remove(id)
            return state.outcomes.removeValue(forKey: id)
        }
    }
}

/// libnats' callback for each asynchronous publish's answer, on its own thread: hands
/// the outcome to the `PubAcks` in `closure`, then destroys the message (ours, per the
/// libnats documentation).
private let pubAckHandler: jsPubAckHandler = { _, message, ack, failure, closure in
    defer { natsMsg_Destroy(message) }
    guard let closure, let message else { return }
    let acks = Unmanaged<PubAcks>.fromOpaque(closure).takeUnretainedValue()
    var idPointer: UnsafePointer<CChar>?
    guard natsMsgHeader_Get(message, "Nats-Msg-Id", &idPointer) == NATS_OK, let idPointer else { return }
    let id = String(cString: idPointer)
    if let ack {
        acks.record(id, .stored(duplicate: ack.pointee.Duplicate))
    } else if let failure {
        let subject = String(cString: natsMsg_GetSubject(message))
        let text = String(cString: natsStatus_GetText(failure.pointee.Err))
        var line = "publishing to \(subject): \(text)"
        if let detail = failure.pointee.ErrText { line += " (\(String(cString: detail)))" }
        if failure.pointee.ErrCode.rawValue != 0 { line += " [JetStream error \(failure.pointee.ErrCode.rawValue)]" }
        let kind: NATSError.Kind = failure.pointee.Err == NATS_TIMEOUT ? .timeout : .unavailable
        acks.record(id, .failed(NATSError(line, kind: kind)))
    }
}

/// One JetStream message, owned: destroyed with this value.
///
/// `@unchecked Sendable`: the message is only read (its subject, body, metadata) or
/// acknowledged, and libnats allows both from any thread; it is destroyed only in
/// `deinit`. The connection it came on is kept alive by `owner`.
public final class NATSMessage: @unchecked Sendable {
    private let message: OpaquePointer
    private let owner: NATSConnection

    init(_ message: OpaquePointer, owner: NATSConnection) {
        self.message = message
        self.owner = owner
    }

    deinit { natsMsg_Destroy(message) }

    public var subject: String { String(cString: natsMsg_GetSubject(message)) }

    public var body: [UInt8] {
        let count = Int(natsMsg_GetDataLength(message))
        guard count > 0, let data = natsMsg_GetData(message) else { return [] }
        return data.withMemoryRebound(to: UInt8.self, capacity: count) { Array(UnsafeBufferPointer(start: $0, count: count)) }
    }

    public var text: String { String(decoding: body, as: UTF8.self) }

    /// A header's value.
    public func header(_ key: String) -> String? {
        var value: UnsafePointer<CChar>?
        let status = key.withCString { natsMsgHeader_Get(message, $0, &value) }
        guard status == NATS_OK, let value else { return nil }
        return String(cString: value)
    }

    /// The stream's view of it: its stream sequence, how many remain for the consumer,
    /// when it was stored.
    public var metadata: (streamSequence: UInt64, pending: UInt64, stored: Date, delivered: UInt64)? {
        var meta: UnsafeMutablePointer<jsMsgMetaData>?
        guard natsMsg_GetMetaData(&meta, message) == NATS_OK, let meta else { return nil }
        defer { jsMsgMetaData_Destroy(meta) }
        return (
            meta.pointee.Sequence.Stream, meta.pointee.NumPending,
            Date(timeIntervalSince1970: Double(meta.pointee.Timestamp) / 1e9), meta.pointee.NumDelivered
        )
    }

    /// Acknowledges it and waits for the server to confirm (a durable consumer's
    /// explicit ack): after this returns it is not delivered again.
    public func acknowledge() throws(NATSError) {
        var jsError = jsErrCode(0)
        let status = natsMsg_AckSync(message, nil, &jsError)
        guard status == NATS_OK else { throw .from(status, doing: "acknowledging \(subject)", jsError: jsError) }
    }

    /// Tells the server it is still being worked on: its ack wait starts again.
    public func inProgress() {
        _ = natsMsg_InProgress(message, nil)
    }

    /// Refuses it for good: the server never sends it again (a body that is not an event).
    public func terminate() {
        _ = natsMsg_Term(message, nil)
    }

    /// Asks for it to be sent again after `delay` seconds.
    public func notAcknowledged(delay: Double) {
        _ = natsMsg_NakWithDelay(message, Int64(delay * 1000), nil)
    }
}

/// A subscription (ordered reader or durable pull consumer).
///
/// `@unchecked Sendable`: libnats allows `NextMsg`/`Fetch` and `Unsubscribe` from
/// different threads (an unsubscribe makes a waiting call return); the pointer is set
/// once and destroyed only in `deinit`.
public final class NATSSubscription: @unchecked Sendable {
    private let subscription: OpaquePointer
    private let owner: NATSConnection

    init(_ subscription: OpaquePointer, owner: NATSConnection) {
        self.subscription = subscription
        self.owner = owner
    }

    deinit {
        natsSubscription_Destroy(subscription)
    }

    /// Ends it: a call waiting in `next` or `fetch` returns.
    public func stop() {
        _ = natsSubscription_Unsubscribe(subscription)
    }

    /// The next message of an ordered reader, or `nil` when none came within `timeout` seconds.
    public func next(timeout: Double) throws(NATSError) -> NATSMessage? {
        var message: OpaquePointer?
        let status = natsSubscription_NextMsg(&message, subscription, Int64(timeout * 1000))
        if status == NATS_TIMEOUT { return nil }
        guard status == NATS_OK, let message else { throw .from(status, doing: "reading the stream") }
        return NATSMessage(message, owner: owner)
    }

    /// Up to `batch` messages of a pull consumer; empty when none came within `timeout` seconds.
    public func fetch(batch: Int, timeout: Double) throws(NATSError) -> [NATSMessage] {
        var list = natsMsgList()
        var jsError = jsErrCode(0)
        let status = natsSubscription_Fetch(&list, subscription, Int32(batch), Int64(timeout * 1000), &jsError)
        if status == NATS_TIMEOUT { return [] }
        guard status == NATS_OK else { throw .from(status, doing: "fetching from the consumer", jsError: jsError) }
        var messages: [NATSMessage] = []
        if let items = list.Msgs {
            for index in 0..<Int(list.Count) {
                if let message = items[index] {
                    messages.append(NATSMessage(message, owner: owner))
                    items[index] = nil  // owned by the NATSMessage now; the list must not destroy it
                }
            }
        }
        natsMsgList_Destroy(&list)
        return messages
    }
}
