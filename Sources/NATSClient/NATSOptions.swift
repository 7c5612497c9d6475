import JuicePrimitives

/// How to reach a NATS server or cluster.
package struct NATSOptions: Sendable {
    /// `nats://host:port` URLs (several for a cluster).
    package var servers: [String]
    /// An authentication token; never printed.
    package var token: String?
    /// A `.creds` file (user JWT and seed).
    package var credentialsFile: String?
    /// TLS files; any means TLS, as a `tls://` server does.
    package var tls: TLSFiles?
    /// How long connecting, and each request (a publish's PubAck, a stream lookup), may take.
    package var timeout: Double
    /// Whether a lost connection is re-established in the background (a long-running
    /// reader); a publisher that reconnects on its next attempt may say `false`.
    package var reconnects: Bool
    /// The connection's name, as the server's monitoring shows it.
    package var name: String
    /// How many asynchronous publishes may wait for their PubAck at once.
    package var maxOutstandingAcks: Int = 256
    /// Hears one line when a connection that `reconnects` is lost, and one when it is
    /// back (with how long it was away); `nil`: nothing is said.
    package var connectionReport: (@Sendable (String) -> Void)?

    package init(
        servers: [String], token: String? = nil, credentialsFile: String? = nil, tls: TLSFiles? = nil, timeout: Double = 5,
        reconnects: Bool = true, name: String = "juice"
    ) {
        self.tls = tls
        self.servers = servers
        self.token = token
        self.credentialsFile = credentialsFile
        self.timeout = timeout
        self.reconnects = reconnects
        self.name = name
    }

    /// Whether the connection must be TLS: some server is a `tls://` URL. Then a server
    /// that offers no TLS is refused (`NATSError.Kind.tlsRequired`), never used in plain text.
    package var requiresTLS: Bool {
        tls != nil || servers.contains { $0.lowercased().hasPrefix("tls://") }
    }

    /// The servers as they may be shown (no user or password); a server that is not a
    /// URL (`nats://u:p@h:x`) with `URLCredentials.redacted`, so that no password in it
    /// is shown either.
    package var displayServers: String {
        servers.map { ParsedURL($0)?.withoutUserInfo ?? URLCredentials.redacted($0) }.joined(separator: ",")
    }
}
