/// The TLS files of a connection, absolute paths: what the fleet's config names
/// (`Fleet.tlsFiles`) and the NATS client connects with.
package struct TLSFiles: Sendable, Equatable {
    /// PEM certificate authorities the server's certificate is checked against; `nil`: the system's.
    package let certificateAuthorities: String?
    /// A PEM client certificate and its private key, both or neither.
    package let certificate: String?
    package let key: String?

    package init(certificateAuthorities: String?, certificate: String?, key: String?) {
        self.certificateAuthorities = certificateAuthorities
        self.certificate = certificate
        self.key = key
    }
}
