import CTLS
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import JuicePrimitives

/// The TLS settings an endpoint's connections share (an `SSL_CTX` of the system's
/// OpenSSL): TLS 1.2 or later, the server's certificate verified against the system's
/// trust store. There is no way to turn verification off.
///
/// `trustedCertificatesFile` replaces the system's trust store with one PEM file; it
/// is for tests (a CA made on the spot) and cannot be reached from the config.
final class TLSContext {
    let context: OpaquePointer
    /// The system's libssl (`ctls_openssl_load`): loaded by the first context; later
    /// ones find it loaded and only look its functions up again.
    let openSSL: ctls_openssl

    init(trustedCertificatesFile: String?) throws(HTTPClientError) {
        let openSSL = try Self.loadOpenSSL()
        guard let context = openSSL.SSL_CTX_new(openSSL.TLS_client_method()) else {
            throw .tlsFailed("cannot create a TLS context: \(TLSSession.lastError(openSSL))")
        }
        self.context = context
        self.openSSL = openSSL
        guard ctls_set_minimum_tls12(openSSL.SSL_CTX_ctrl, context) == 1 else {
            throw .tlsFailed("cannot require TLS 1.2: \(TLSSession.lastError(openSSL))")
        }
        openSSL.SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
        // OpenSSL opens the file by name: it passes the file gate first (a regular file,
        // never waited on).
        if let trustedCertificatesFile {
            do throws(FileRefusal) {
                try FileGate.checkReadable(trustedCertificatesFile)
            } catch {
                throw .tlsFailed("cannot read the trusted certificates \(trustedCertificatesFile): \(error.message.english)")
            }
        }
        let loaded =
            if let trustedCertificatesFile {
                openSSL.SSL_CTX_load_verify_locations(context, trustedCertificatesFile, nil)
            } else {
                openSSL.SSL_CTX_set_default_verify_paths(context)
            }
        guard loaded == 1 else { throw .tlsFailed("cannot load the trusted certificates: \(TLSSession.lastError(openSSL))") }
    }

    deinit { openSSL.SSL_CTX_free(context) }

    /// The functions of the system's libssl, which `juice` does not link (Sources/CTLS).
    private static func loadOpenSSL() throws(HTTPClientError) -> ctls_openssl {
        let table = UnsafeMutablePointer<ctls_openssl>.allocate(capacity: 1)
        defer { table.deallocate() }
        if let failure = ctls_openssl_load(table) {
            let reason = String(cString: failure)
            throw .tlsFailed("cannot load the system's OpenSSL (\(reason)); install OpenSSL's libssl (Debian: libssl3, or libssl3t64)")
        }
        return table.pointee
    }
}

/// One TLS connection's state over a socket the caller owns. OpenSSL only encrypts
/// and decrypts, between two memory buffers; this type moves the bytes between them
/// and the socket itself (`HTTPSocket`), so every wait is the request's `poll` (its
/// deadline, its cancellation) and no write raises SIGPIPE.
///
/// The certificate must chain to a trusted root and name the host (`SSL_set1_host`,
/// no partial wildcards) or, for an address, hold it (`X509_VERIFY_PARAM_set1_ip_asc`).
/// SNI carries the host name (never an address).
final class TLSSession {
    private let openSSL: ctls_openssl
    private let ssl: OpaquePointer
    /// Bytes from the network for OpenSSL, and OpenSSL's bytes for the network. Owned by `ssl`.
    private let incoming: OpaquePointer
    private let outgoing: OpaquePointer
    private let descriptor: Int32
    private var inputEnded = false
    private var scratch = [UInt8](repeating: 0, count: 16_384 + 512)

    init(context: TLSContext, descriptor: Int32, host: String, hostIsAddress: Bool) throws(HTTPClientError) {
        let openSSL = context.openSSL
        guard let ssl = openSSL.SSL_new(context.context) else { throw .tlsFailed("cannot create a TLS session: \(Self.lastError(openSSL))") }
        guard let incoming = openSSL.BIO_new(openSSL.BIO_s_mem()), let outgoing = openSSL.BIO_new(openSSL.BIO_s_mem()) else {
            openSSL.SSL_free(ssl)
            throw .tlsFailed("cannot create TLS buffers")
        }
        openSSL.SSL_set_bio(ssl, incoming, outgoing)
        self.openSSL = openSSL
        self.ssl = ssl
        self.incoming = incoming
        self.outgoing = outgoing
        self.descriptor = descriptor
        // A trailing dot (an absolute name) is neither sent as SNI nor matched.
        let name = host.hasSuffix(".") ? String(host.dropLast()) : host
        if hostIsAddress {
            guard openSSL.X509_VERIFY_PARAM_set1_ip_asc(openSSL.SSL_get0_param(ssl), name) == 1 else {
                throw .tlsFailed("cannot check the address \(name)")
            }
        } else {
            openSSL.SSL_set_hostflags(ssl, UInt32(X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS))
            guard ctls_set_server_name(openSSL.SSL_ctrl, ssl, name) == 1, openSSL.SSL_set1_host(ssl, name) == 1 else {
                throw .tlsFailed("cannot check the host name \(name)")
            }
        }
        openSSL.SSL_set_connect_state(ssl)
    }

    deinit { openSSL.SSL_free(ssl) }

    /// The TLS handshake. A certificate that fails verification is
    /// `certificateNotTrusted` with OpenSSL's reason ("self-signed certificate",
    /// "hostname mismatch", …).
    func handshake(_ wait: HTTPWait) throws(HTTPClientError) {
        while true {
            openSSL.ERR_clear_error()
            let result = openSSL.SSL_do_handshake(ssl)
            try flush(wait)
            if result == 1 { return }
            let error = openSSL.SSL_get_error(ssl, result)
            if error == SSL_ERROR_WANT_READ, !inputEnded {
                try fill(wait)
                continue
            }
            let verification = openSSL.SSL_get_verify_result(ssl)
            if verification != Int(X509_V_OK) {
                let reason = openSSL.X509_verify_cert_error_string(verification).map { String(cString: $0) }
                throw .certificateNotTrusted(reason ?? "verification error \(verification)")
            }
            if inputEnded { throw .tlsFailed("the server closed the connection during the handshake") }
            throw .tlsFailed(Self.lastError(openSSL))
        }
    }

    /// Encrypts and sends all of `bytes`.
    func send(_ bytes: UnsafeRawBufferPointer, wait: HTTPWait) throws(HTTPClientError) {
        guard let start = bytes.baseAddress else { return }
        var offset = 0
        while offset < bytes.count {
            openSSL.ERR_clear_error()
            let count = Int32(clamping: bytes.count - offset)
            let written = openSSL.SSL_write(ssl, start + offset, count)
            try flush(wait)
            if written > 0 {
                offset += Int(written)
                continue
            }
            let error = openSSL.SSL_get_error(ssl, written)
            if error == SSL_ERROR_WANT_READ, !inputEnded {
                try fill(wait)
                continue
            }
            throw inputEnded || error == SSL_ERROR_ZERO_RETURN ? .connectionLost : .tlsFailed(Self.lastError(openSSL))
        }
    }

    /// Waits for and decrypts some application data into `buffer`: the byte count,
    /// 0 once the server ended the stream (close_notify or a plain close).
    func receive(into buffer: UnsafeMutableRawBufferPointer, wait: HTTPWait) throws(HTTPClientError) -> Int {
        while true {
            openSSL.ERR_clear_error()
            let count = openSSL.SSL_read(ssl, buffer.baseAddress, Int32(clamping: buffer.count))
            // A read may have produced records to send (a key update's answer).
            try flush(wait)
            if count > 0 { return Int(count) }
            let error = openSSL.SSL_get_error(ssl, count)
            if error == SSL_ERROR_ZERO_RETURN { return 0 }
            if error == SSL_ERROR_WANT_READ, !inputEnded {
                try fill(wait)
                continue
            }
            // The socket ended without close_notify: the end of the stream all the same
            // (the body is discarded; a head cut short is caught by the parser).
            if inputEnded { return 0 }
            throw .tlsFailed(Self.lastError(openSSL))
        }
    }

    /// Sends close_notify if the socket takes it at once; never waits.
    func close() {
        openSSL.ERR_clear_error()
        guard openSSL.SSL_shutdown(ssl) >= 0 else { return }
        let pending = openSSL.BIO_ctrl_pending(outgoing)
        guard pending > 0, pending <= scratch.count else { return }
        let count = scratch.withUnsafeMutableBytes { openSSL.BIO_read(outgoing, $0.baseAddress, Int32(pending)) }
        guard count > 0 else { return }
        _ = scratch.withUnsafeBytes { SystemCall.send(descriptor, $0.baseAddress, Int(count), HTTPSocket.noSignal) }
    }

    /// Sends whatever OpenSSL has written.
    private func flush(_ wait: HTTPWait) throws(HTTPClientError) {
        while openSSL.BIO_ctrl_pending(outgoing) > 0 {
            let count = scratch.withUnsafeMutableBytes { openSSL.BIO_read(outgoing, $0.baseAddress, Int32($0.count)) }
            guard count > 0 else { return }
            let descriptor = descriptor
            try scratch.withUnsafeBytes { bytes in
                Result { () throws(HTTPClientError) in
                    try HTTPSocket.send(descriptor, UnsafeRawBufferPointer(rebasing: bytes.prefix(Int(count))), wait: wait)
                }
            }.get()
        }
    }

    /// Reads what the socket has for OpenSSL; at the end of the stream, tells OpenSSL so.
    private func fill(_ wait: HTTPWait) throws(HTTPClientError) {
        let descriptor = descriptor
        let count = try scratch.withUnsafeMutableBytes { bytes in
            Result { () throws(HTTPClientError) in try HTTPSocket.receive(descriptor, into: bytes, wait: wait) }
        }.get()
        if count == 0 {
            inputEnded = true
            ctls_set_end_of_input(openSSL.BIO_ctrl, incoming)
            return
        }
        _ = scratch.withUnsafeBytes { openSSL.BIO_write(incoming, $0.baseAddress, Int32(count)) }
    }

    /// OpenSSL's reason for the last failure on this thread.
    static func lastError(_ openSSL: ctls_openssl) -> String {
        let code = openSSL.ERR_get_error()
        guard code != 0 else { return "unknown error" }
        if let reason = openSSL.ERR_reason_error_string(code) { return String(cString: reason) }
        return "error \(code)"
    }
}
