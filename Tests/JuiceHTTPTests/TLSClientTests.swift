import Foundation
import JuiceTestSupport
import Testing
import JuiceHTTP

/// TLS through the system's OpenSSL against a TLS server on 127.0.0.1 whose
/// certificate is made on the spot with the `openssl` command: self-signed, for
/// `localhost`. Verification is always on, so the system's trust store refuses it;
/// trusting it (a package-internal hook, not reachable from the config) lets it pass
/// for `localhost` and still refuses it for `127.0.0.1`, which it does not name.
@Suite(
    .tags(.process), .notInUnitRun,
    .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl"), "the openssl command is not installed"))
struct TLSClientTests {
    /// A self-signed certificate for DNS:localhost and its key, in `directory`.
    private func makeCertificate(in directory: TemporaryDirectory) throws -> (certificate: String, key: String) {
        let certificate = directory.file("cert.pem")
        let key = directory.file("key.pem")
        _ = try runProgram(
            "/usr/bin/openssl",
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1",
                "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost", "-keyout", key, "-out", certificate,
            ])
        guard FileManager.default.fileExists(atPath: certificate) else { throw ServerError("openssl req made no certificate") }
        return (certificate, key)
    }

    @Test func anUntrustedCertificateFailsVerificationWithOneClearLine() async throws {
        let directory = try TemporaryDirectory()
        let (certificate, key) = try makeCertificate(in: directory)
        let server = try LoopbackHTTPServer.started(tls: .init(certificate: certificate, key: key))
        defer { server.stop() }
        let client = try TestClient("https://localhost:\(server.port)/hook")
        let failure = await client.post().failure
        guard case .certificateNotTrusted(let reason) = failure else {
            Issue.record("expected certificate not trusted, got \(String(describing: failure))")
            return
        }
        print("TLS, self-signed certificate: \(failure?.message.english ?? "")")
        #expect(reason.contains("self-signed") || reason.contains("self signed"), "\(reason)")
        #expect(failure?.message.english.hasPrefix("certificate not trusted: ") == true)
        #expect(server.requests.isEmpty)
    }

    @Test func aTrustedCertificateWorksForTheNameItHoldsOnly() async throws {
        let directory = try TemporaryDirectory()
        let (certificate, key) = try makeCertificate(in: directory)
        let server = try LoopbackHTTPServer.started(tls: .init(certificate: certificate, key: key))
        defer { server.stop() }
        let client = try TestClient("https://localhost:\(server.port)/hook", trusting: certificate)
        for _ in 0..<3 { #expect(try await client.post().get().status == 200) }
        #expect(server.requests.count == 3)
        #expect(server.handshakes == 1, "three requests, one kept-alive TLS connection")
        client.close()

        let byAddress = try TestClient("https://127.0.0.1:\(server.port)/hook", trusting: certificate)
        let failure = await byAddress.post().failure
        print("TLS, trusted certificate for localhost reached as 127.0.0.1: \(failure?.message.english ?? "success")")
        guard case .certificateNotTrusted(let reason) = failure else {
            Issue.record("expected certificate not trusted, got \(String(describing: failure))")
            return
        }
        #expect(reason.contains("mismatch"), "\(reason)")
    }
}
