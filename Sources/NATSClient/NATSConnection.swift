import CNATSLoader
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import JuicePrimitives

/// One connection to NATS with its JetStream context.
///
/// `@unchecked Sendable`: libnats documents `natsConnection` and `jsCtx` as safe to use
/// from any thread at once; the pointers are set once in `init` and never changed; they
/// are destroyed only in `deinit`, when no other reference (so no other call) exists.
/// `close()` only closes the connection (libnats allows that concurrently with calls,
/// which then fail with `NATS_CONNECTION_CLOSED`).
package final class NATSConnection: @unchecked Sendable {
    private let connection: OpaquePointer
    /// The JetStream context (for this module's extensions).
    let jetStream: OpaquePointer
    private let options: OpaquePointer
    /// The request timeout in milliseconds.
    let timeoutMilliseconds: Int64
    /// Where libnats' threads leave the refused asynchronous publishes.
    private let failures: PublishFailures
    /// What says a lost connection and its return, if anything.
    private let watch: ConnectionWatch?
    package let displayServers: String

    /// Connects (failing within `options.timeout` when no server answers) and opens JetStream.
    package init(_ options: NATSOptions) throws(NATSError) {
        try loadNATSLibrary()
        displayServers = options.displayServers
        timeoutMilliseconds = Int64((options.timeout * 1000).rounded())
        let strings = CStrings()
        var created: OpaquePointer?
        var status = nats.pointee.natsOptions_Create(&created)
        guard status == NATS_OK, let natsOptions = created else { throw .from(status, doing: "setting up the NATS client") }
        let doing = "connecting to \(displayServers)"
        func check(_ status: natsStatus, _ what: String) throws(NATSError) {
            guard status == NATS_OK else {
                nats.pointee.natsOptions_Destroy(natsOptions)
                throw .from(status, doing: what)
            }
        }
        try check(nats.pointee.natsOptions_SetServers(natsOptions, strings.array(options.servers), Int32(options.servers.count)), doing)
        try check(nats.pointee.natsOptions_SetTimeout(natsOptions, timeoutMilliseconds), doing)
        if options.requiresTLS { try check(nats.pointee.natsOptions_SetSecure(natsOptions, true), "requiring TLS for \(displayServers)") }
        // Each file libnats opens by name passes the file gate first: a regular file, never
        // waited on (a FIFO there would hang the connection's set-up).
        func gate(_ file: String, _ what: String) throws(NATSError) {
            do throws(FileRefusal) {
                try FileGate.checkReadable(file)
            } catch {
                nats.pointee.natsOptions_Destroy(natsOptions)
                throw NATSError("cannot read the \(what) \(file): \(error.message.english)", kind: .configuration)
            }
        }
        if let file = options.tls?.certificateAuthorities {
            try gate(file, "TLS CA file")
            try check(nats.pointee.natsOptions_LoadCATrustedCertificates(natsOptions, strings.make(file)), "reading the TLS CA file \(file)")
        }
        if let certificate = options.tls?.certificate, let key = options.tls?.key {
            try gate(certificate, "TLS certificate")
            try gate(key, "TLS key")
            try check(
                nats.pointee.natsOptions_LoadCertificatesChain(natsOptions, strings.make(certificate), strings.make(key)),
                "reading the TLS certificate \(certificate) and its key \(key)")
        }
        try check(nats.pointee.natsOptions_SetName(natsOptions, strings.make(options.name)), doing)
        try check(nats.pointee.natsOptions_SetAllowReconnect(natsOptions, options.reconnects), doing)
        if options.reconnects {
            try check(nats.pointee.natsOptions_SetMaxReconnect(natsOptions, -1), doing)
            try check(nats.pointee.natsOptions_SetReconnectWait(natsOptions, 250), doing)
        }
        // Retained for good, never released, as `failures` below: libnats may call the
        // handlers on its own thread until the connection is destroyed.
        let watch = options.reconnects ? options.connectionReport.map { ConnectionWatch(servers: options.displayServers, report: $0) } : nil
        if let watch {
            let closure = Unmanaged.passRetained(watch).toOpaque()
            try check(nats.pointee.natsOptions_SetDisconnectedCB(natsOptions, disconnectedHandler, closure), doing)
            try check(nats.pointee.natsOptions_SetReconnectedCB(natsOptions, reconnectedHandler, closure), doing)
        }
        if let token = options.token { try check(nats.pointee.natsOptions_SetToken(natsOptions, strings.make(token)), doing) }
        if let file = options.credentialsFile {
            try gate(file, "credentials file")
            try check(
                nats.pointee.natsOptions_SetUserCredentialsFromFiles(natsOptions, strings.make(file), nil),
                "reading the credentials file \(file)")
        }
        var connected: OpaquePointer?
        status = nats.pointee.natsConnection_Connect(&connected, natsOptions)
        guard status == NATS_OK, let connection = connected else {
            nats.pointee.natsOptions_Destroy(natsOptions)
            throw .from(status, doing: doing)
        }
        // Retained for good, never released: libnats may call the handler on its own
        // thread until the connection is destroyed, so it must outlive this object
        // (one small object per connection).
        let failures = PublishFailures()
        var jsOptions = jsOptions()
        _ = nats.pointee.jsOptions_Init(&jsOptions)
        jsOptions.Wait = timeoutMilliseconds
        jsOptions.PublishAsync.MaxPending = Int64(max(1, options.maxOutstandingAcks))
        jsOptions.PublishAsync.ErrHandler = publishErrorHandler
        jsOptions.PublishAsync.ErrHandlerClosure = Unmanaged.passRetained(failures).toOpaque()
        jsOptions.PublishAsync.StallWait = timeoutMilliseconds
        var context: OpaquePointer?
        status = nats.pointee.natsConnection_JetStream(&context, connection, &jsOptions)
        guard status == NATS_OK, let context else {
            nats.pointee.natsConnection_Destroy(connection)
            nats.pointee.natsOptions_Destroy(natsOptions)
            throw .from(status, doing: "opening JetStream on \(displayServers)")
        }
        self.connection = connection
        self.jetStream = context
        self.options = natsOptions
        self.failures = failures
        self.watch = watch
    }

    deinit {
        watch?.closing()
        nats.pointee.jsCtx_Destroy(jetStream)
        nats.pointee.natsConnection_Destroy(connection)
        nats.pointee.natsOptions_Destroy(options)
    }

    /// Closes the connection; later calls fail.
    package func close() {
        watch?.closing()
        nats.pointee.natsConnection_Close(connection)
    }

    /// Whether the connection is up now (not closed, not reconnecting).
    package var isConnected: Bool {
        nats.pointee.natsConnection_Status(connection) == NATS_CONN_STATUS_CONNECTED
    }

    // MARK: Streams

    /// Makes sure stream `name` exists and takes `subjects`: creates it (file storage,
    /// `replicas`, `retention`) when missing; throws `.streamMismatch` when it exists
    /// without them. An existing stream whose limits differ from those `retention`
    /// sets is brought to them (the rest of its configuration is left as it is).
    package func ensureStream(_ name: String, subjects: String, replicas: Int, retention: StreamRetention = StreamRetention()) throws(NATSError) {
        if let existing = try stream(name) {
            guard existing.takes(subjects) else { throw existing.mismatch(subjects) }
            if !retention.isMet(by: existing) { try update(name, to: retention) }
            return
        }
        let (status, jsError) = addStream(name, subjects: subjects, replicas: replicas) { retention.apply(to: &$0) }
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

    /// Stream `name` as the server describes it, or `nil` when there is none.
    package func stream(_ name: String) throws(NATSError) -> StreamSummary? {
        var info: UnsafeMutablePointer<jsStreamInfo>?
        var jsError = jsErrCode(0)
        let strings = CStrings()
        let status = nats.pointee.js_GetStreamInfo(&info, jetStream, strings.make(name), nil, &jsError)
        if status == NATS_NOT_FOUND { return nil }
        guard status == NATS_OK, let info else { throw .from(status, doing: "looking up stream \(name)", jsError: jsError) }
        defer { nats.pointee.jsStreamInfo_Destroy(info) }
        return StreamSummary(name: name, info: info.pointee)
    }

    /// Stream `name`, which a reader of `subjects` needs: throws `.noStream` when it does
    /// not exist (no machine has published yet) and `.streamMismatch` when it takes
    /// other subjects.
    package func requireStream(_ name: String, subjects: String) throws(NATSError) -> StreamSummary {
        guard let existing = try stream(name) else {
            throw NATSError(
                "no machine has published to \(name) yet: there is no stream \(name) on \(displayServers) "
                    + "(if the machines' nats subscriber names another \"stream\", set fleet.stream to it)",
                kind: .noStream)
        }
        guard existing.takes(subjects) else { throw existing.mismatch(subjects) }
        return existing
    }

    /// Brings stream `name`'s limits to `retention`.
    private func update(_ name: String, to retention: StreamRetention) throws(NATSError) {
        var info: UnsafeMutablePointer<jsStreamInfo>?
        var jsError = jsErrCode(0)
        let strings = CStrings()
        var status = nats.pointee.js_GetStreamInfo(&info, jetStream, strings.make(name), nil, &jsError)
        guard status == NATS_OK, let info, let config = info.pointee.Config else {
            throw .from(status, doing: "looking up stream \(name)", jsError: jsError)
        }
        defer { nats.pointee.jsStreamInfo_Destroy(info) }
        retention.apply(to: &config.pointee)
        var updated: UnsafeMutablePointer<jsStreamInfo>?
        status = nats.pointee.js_UpdateStream(&updated, jetStream, config, nil, &jsError)
        if let updated { nats.pointee.jsStreamInfo_Destroy(updated) }
        guard status == NATS_OK else { throw .from(status, doing: "setting the limits of stream \(name)", jsError: jsError) }
    }

    /// Creates stream `name` for `subjects` (file storage, `replicas`), with what
    /// `configure` changes; libnats' status and JetStream's error code.
    func addStream(
        _ name: String, subjects: String, replicas: Int, configure: (inout jsStreamConfig) -> Void = { _ in }
    ) -> (natsStatus, jsErrCode) {
        let strings = CStrings()
        var config = jsStreamConfig()
        _ = nats.pointee.jsStreamConfig_Init(&config)
        config.Name = strings.make(name)
        config.Subjects = strings.array([subjects])
        config.SubjectsLen = 1
        config.Storage = js_FileStorage
        config.Replicas = Int64(replicas)
        configure(&config)
        var info: UnsafeMutablePointer<jsStreamInfo>?
        var jsError = jsErrCode(0)
        let status = nats.pointee.js_AddStream(&info, jetStream, &config, nil, &jsError)
        if let info { nats.pointee.jsStreamInfo_Destroy(info) }
        return (status, jsError)
    }

    /// How many messages stream `name` holds.
    package func streamMessageCount(_ name: String) throws(NATSError) -> UInt64 {
        var info: UnsafeMutablePointer<jsStreamInfo>?
        var jsError = jsErrCode(0)
        let strings = CStrings()
        let status = nats.pointee.js_GetStreamInfo(&info, jetStream, strings.make(name), nil, &jsError)
        guard status == NATS_OK, let info else { throw .from(status, doing: "looking up stream \(name)", jsError: jsError) }
        defer { nats.pointee.jsStreamInfo_Destroy(info) }
        return info.pointee.State.Msgs
    }

    /// Deletes stream `name` and everything it holds.
    package func deleteStream(_ name: String) throws(NATSError) {
        var jsError = jsErrCode(0)
        let strings = CStrings()
        let status = nats.pointee.js_DeleteStream(jetStream, strings.make(name), nil, &jsError)
        guard status == NATS_OK else { throw .from(status, doing: "deleting stream \(name)", jsError: jsError) }
    }

    // MARK: Publishing

    /// Publishes `body` to `subject` with `headers` and returns when JetStream has
    /// stored it (the PubAck), or throws. `messageID` goes in `Nats-Msg-Id`: the stream
    /// drops a second publish with the same id within its duplicate window.
    /// - Returns: whether the stream reported the message a duplicate.
    @discardableResult
    package func publish(
        subject: String, body: [UInt8], headers: [(String, String)], messageID: String
    ) throws(NATSError) -> Bool {
        let strings = CStrings()
        var created: OpaquePointer?
        var status = body.withUnsafeBufferPointer { buffer in
            nats.pointee.natsMsg_Create(
                &created, strings.make(subject), nil, buffer.baseAddress.map { UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self) },
                Int32(buffer.count))
        }
        guard status == NATS_OK, let message = created else { throw .from(status, doing: "preparing a message for \(subject)") }
        defer { nats.pointee.natsMsg_Destroy(message) }
        for (key, value) in headers {
            status = nats.pointee.natsMsgHeader_Set(message, strings.make(key), strings.make(value))
            guard status == NATS_OK else { throw .from(status, doing: "setting header \(key)") }
        }
        var options = jsPubOptions()
        _ = nats.pointee.jsPubOptions_Init(&options)
        options.MsgId = strings.make(messageID)
        options.MaxWait = timeoutMilliseconds
        var ack: UnsafeMutablePointer<jsPubAck>?
        var jsError = jsErrCode(0)
        status = nats.pointee.js_PublishMsg(&ack, jetStream, message, &options, &jsError)
        defer { if let ack { nats.pointee.jsPubAck_Destroy(ack) } }
        guard status == NATS_OK, let ack else { throw .from(status, doing: "publishing to \(subject) on \(displayServers)", jsError: jsError) }
        return ack.pointee.Duplicate
    }

    /// Publishes like `publish` without waiting: `completePublishes()` waits for the
    /// answers. At most `NATSOptions.maxOutstandingAcks` are outstanding; beyond that
    /// this waits (up to the timeout) for room.
    ///
    /// No `MaxWait`: `completePublishes` keeps the deadline. libnats' own timeout would
    /// cost every publish an allocation, a copied reply subject and a timer entry (CPU
    /// per event in `juice-bench fleet`), for a PubAck that almost always comes.
    package func publishAsync(subject: String, body: String, headers: [(String, String)], messageID: some NATSMessageID) throws(NATSError) {
        // No copies on the way: libnats copies the subject, the body and each header.
        var body = body
        var created: OpaquePointer?
        var status = subject.withCString { subjectPointer in
            body.withUTF8 { buffer in
                nats.pointee.natsMsg_Create(
                    &created, subjectPointer, nil, buffer.baseAddress.map { UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self) },
                    Int32(buffer.count))
            }
        }
        guard status == NATS_OK, let message = created else { throw .from(status, doing: "preparing a message for \(subject)") }
        // libnats sets `Nats-Msg-Id` from `options.MsgId`.
        for (key, value) in headers {
            status = key.withCString { key in value.withCString { value in nats.pointee.natsMsgHeader_Set(message, key, value) } }
            guard status == NATS_OK else {
                nats.pointee.natsMsg_Destroy(message)
                throw .from(status, doing: "setting header \(key)")
            }
        }
        var pointer: OpaquePointer? = message
        status = messageID.withCString { idPointer in
            var options = jsPubOptions()
            _ = nats.pointee.jsPubOptions_Init(&options)
            options.MsgId = idPointer
            return nats.pointee.js_PublishMsgAsync(jetStream, &pointer, &options)
        }
        // On success libnats owns the message (and set `pointer` to NULL); otherwise it is ours.
        if let left = pointer { nats.pointee.natsMsg_Destroy(left) }
        guard status == NATS_OK else { throw .from(status, doing: "publishing to \(subject) on \(displayServers)") }
    }

    /// Waits until every asynchronous publish so far is answered, or the timeout, and
    /// returns the failures by message id: those the stream refused and, after the
    /// timeout, those still without a PubAck. Nothing is outstanding afterwards: a
    /// PubAck that comes later is dropped. The rest of the publishes are stored.
    package func completePublishes() -> [String: NATSError] {
        var options = jsPubOptions()
        _ = nats.pointee.jsPubOptions_Init(&options)
        options.MaxWait = timeoutMilliseconds + 500
        let status = nats.pointee.js_PublishAsyncComplete(jetStream, &options)
        var failed = failures.take()
        guard status != NATS_OK else { return failed }
        // Those without an answer, taken back from libnats.
        var pending = natsMsgList()
        guard nats.pointee.js_PublishAsyncGetPendingList(&pending, jetStream) == NATS_OK else { return failed }
        defer { nats.pointee.natsMsgList_Destroy(&pending) }
        let why =
            isConnected
            ? "no PubAck within \(Double(timeoutMilliseconds) / 1000) s; the server did not answer in time"
            : "the connection was lost before the PubAck; is nats-server -js running there?"
        let error = NATSError("publishing on \(displayServers): \(why)", kind: .timeout)
        for index in 0..<Int(pending.Count) {
            guard let message = pending.Msgs?[index], let id = publishedMessageID(message) else { continue }
            if failed[id] == nil { failed[id] = error }
        }
        // Refusals that came in meanwhile.
        for (id, refusal) in failures.take() where failed[id] == nil { failed[id] = refusal }
        return failed
    }

    // MARK: Reading

    /// Where a reader starts in the stream.
    package enum Start: Sendable {
        case all
        case new
        case since(Date)
        case lastPerSubject
    }

    /// An ordered, unacknowledged reader of `filter` in `stream` (for `fleet watch`
    /// and `fleet stock`): libnats keeps it in order across reconnects.
    package func reader(stream: String, filter: String, start: Start) throws(NATSError) -> NATSSubscription {
        let strings = CStrings()
        var options = jsSubOptions()
        _ = nats.pointee.jsSubOptions_Init(&options)
        options.Stream = strings.make(stream)
        juice_nats_set_ordered(&options)
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
        let status = nats.pointee.js_SubscribeSync(&subscription, jetStream, strings.make(filter), nil, &options, &jsError)
        guard status == NATS_OK, let subscription else {
            throw .from(status, doing: "reading \(filter) from stream \(stream)", jsError: jsError)
        }
        return NATSSubscription(subscription, owner: self)
    }
}
