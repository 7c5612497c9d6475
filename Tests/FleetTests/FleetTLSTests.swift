import Foundation
import JuiceTestSupport
import Testing
import NATSClient

/// `tls://` means TLS: a server that offers none is refused, never used in plain text.
@Suite(.tags(.nats, .process, .slow), .notInUnitRun, .requiresNATS, .serialized)
struct FleetTLSTests {
    @Test(.timeLimit(.minutes(1)))
    func aTLSURLRefusesAPlainServer() async throws {
        let server = try await NATSServerProcess.started()
        defer { server.stop() }
        _ = try await JuiceSandbox.publishing("shop-a", to: server)
        let tls = "tls://127.0.0.1:\(server.port)"
        let central = try JuiceSandbox.fleetMachine(
            "central", subscribers: #"[{"type": "webhook", "name": "hook", "url": "http://127.0.0.1:1/"}]"#,
            extra: #""fleet": {"url": "\#(tls)", "timeoutSeconds": 2}"#)
        for command in [["fleet", "stock"], ["fleet", "deliver"], ["fleet", "stock", "--nats", tls]] {
            let run = try await central.running(command)
            #expect(run.status == 78, "\(command): \(run.stderr)")
            let lines = run.stderr.split(separator: "\n")
            #expect(lines.count == 1 && lines[0].contains("offers no TLS"), "\(command): \(run.stderr)")
            #expect(run.stdout.isEmpty, "\(command): \(run.stdout)")
        }
        // A machine publishing to it: nothing goes out in plain text, and the subscriber stops with the reason.
        let machine = try JuiceSandbox.fleetMachine("shop-b", subscribers: FleetIntegrationTests.natsSubscriber(tls, retries: 1))
        #expect(try await machine.running(["order", "kiwi"]).status == 0)
        _ = try await machine.running(["deliver"])
        let rows = try await machine.running(["subscribers", "--json"]).stdout
        #expect(rows.contains("offers no TLS"), "\(rows)")
        let connection = try server.connect()
        defer { connection.close() }
        #expect(try connection.streamMessageCount("JUICEMAKER") == 2, "only shop-a's kiwi and its juice")
    }

    /// A test CA, and a server and a client certificate it signed (EC P-256, one day), in `directory`.
    static func makeCertificates(in directory: TemporaryDirectory) throws {
        func openssl(_ arguments: [String]) throws {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["openssl"] + arguments
            process.currentDirectoryURL = URL(fileURLWithPath: directory.file(""))
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.runAlone()
            process.waitUntilExit()
            guard process.terminationStatus == 0 else { throw FleetTestError("openssl \(arguments.joined(separator: " ")) failed") }
        }
        let newKey = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        try openssl(["req", "-x509"] + newKey + ["-keyout", "ca.key", "-out", "ca.pem", "-days", "1", "-subj", "/CN=juice-test-ca"])
        _ = try String("subjectAltName=IP:127.0.0.1\n").write(toFile: directory.file("san.ext"), atomically: true, encoding: .utf8)
        for name in ["server", "client"] {
            try openssl(["req"] + newKey + ["-keyout", "\(name).key", "-out", "\(name).csr", "-subj", "/CN=127.0.0.1"])
            try openssl([
                "x509", "-req", "-in", "\(name).csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-out", "\(name).pem", "-days", "1",
                "-extfile", "san.ext",
            ])
        }
    }

    /// A server that requires TLS and a client certificate from the test CA: a machine and
    /// the fleet commands given `tlsCA`, `tlsCertificate` and `tlsKey` reach it; without the
    /// client certificate, or without the CA, they are refused with one line.
    @Test(.timeLimit(.minutes(1)))
    func theTLSFilesReachAServerThatAsksForAClientCertificate() async throws {
        let directory = try TemporaryDirectory(prefix: "juice-fleet-tls-")
        try Self.makeCertificates(in: directory)
        let server = try NATSServerProcess(
            directory: directory,
            arguments: [
                "--tls", "--tlscert", directory.file("server.pem"), "--tlskey", directory.file("server.key"), "--tlsverify", "--tlscacert",
                directory.file("ca.pem"),
            ])
        try await server.start()
        defer { server.stop() }
        let url = "tls://127.0.0.1:\(server.port)"
        let files =
            #""tlsCA": "\#(directory.file("ca.pem"))", "tlsCertificate": "\#(directory.file("client.pem"))", "tlsKey": "\#(directory.file("client.key"))""#
        let machine = try JuiceSandbox.fleetMachine("shop-a", subscribers: #"[{"type": "nats", "url": "\#(url)", \#(files)}]"#)
        #expect(try await machine.running(["order", "kiwi"]).status == 0)
        #expect(try await machine.running(["deliver"]).status == 0, "\(machine.errors)")
        let stock = try await machine.running(
            ["fleet", "stock"],
            config: try machine.write(
                #"{"machine": "central", "fleet": {"url": "\#(url)", "timeoutSeconds": 2, \#(files)}}"#, to: "central.json"))
        #expect(stock.status == 0 && stock.stdout.contains("shop-a"), "\(stock.stderr)")
        // Without the client certificate, and without the CA: refused, one line each.
        for keys in [
            #""tlsCA": "\#(directory.file("ca.pem"))""#,
            #""tlsCertificate": "\#(directory.file("client.pem"))", "tlsKey": "\#(directory.file("client.key"))""#,
        ] {
            let config = try machine.write(#"{"machine": "central", "fleet": {"url": "\#(url)", "timeoutSeconds": 2, \#(keys)}}"#, to: "partial.json")
            let run = try await machine.running(["fleet", "stock"], config: config)
            #expect(run.status == 69, "\(keys): \(run.stderr)")
            #expect(run.stderr.split(separator: "\n").count == 1, "\(keys): \(run.stderr)")
        }
    }

    /// `config check` refuses an unreadable TLS file, one that is no regular file (a
    /// FIFO, a directory, a device: read through the file gate, never waited on) or not
    /// PEM, and a certificate without its key, one line naming the key; `config show`
    /// shows the paths.
    @Test func configCheckChecksTheTLSFiles() async throws {
        let pem = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"
        for (keys, path) in [
            (#""tlsCA": "missing.pem""#, "fleet.tlsCA"), (#""tlsCertificate": "cert.pem""#, "fleet.tlsKey"),
            (#""tlsKey": "cert.pem""#, "fleet.tlsCertificate"), (#""tlsCA": "fifo""#, "fleet.tlsCA"),
            (#""tlsCA": "directory""#, "fleet.tlsCA"), (#""tlsCA": "/dev/zero""#, "fleet.tlsCA"),
            (#""tlsCA": "plain.txt""#, "fleet.tlsCA"), (#""tlsCertificate": "fifo", "tlsKey": "cert.pem""#, "fleet.tlsCertificate"),
        ] {
            let central = try JuiceSandbox.fleetMachine("central", subscribers: "[]", extra: #""fleet": {"url": "tls://127.0.0.1:1", \#(keys)}"#)
            try Data(pem.utf8).write(to: URL(fileURLWithPath: central.file("cert.pem")))
            try Data("no certificate here".utf8).write(to: URL(fileURLWithPath: central.file("plain.txt")))
            #expect(mkfifo(central.file("fifo"), 0o600) == 0)
            try FileManager.default.createDirectory(atPath: central.file("directory"), withIntermediateDirectories: true)
            let run = try await central.running(["config", "check"])
            #expect(run.status == 78, "\(keys)")
            let lines = run.stderr.split(separator: "\n")
            #expect(lines.count == 1 && lines[0].contains(path), "\(keys): \(run.stderr)")
        }
        let central = try JuiceSandbox.fleetMachine(
            "central", subscribers: "[]", extra: #""fleet": {"url": "tls://127.0.0.1:1", "tlsCertificate": "cert.pem", "tlsKey": "key.pem"}"#)
        try Data(pem.utf8).write(to: URL(fileURLWithPath: central.file("cert.pem")))
        try Data("-----BEGIN PRIVATE KEY-----\nMIIB\n-----END PRIVATE KEY-----\n".utf8).write(to: URL(fileURLWithPath: central.file("key.pem")))
        #expect(try await central.running(["config", "check"]).status == 0, "\(central.errors)")
        let shown = try await central.running(["config", "show"]).stdout
        #expect(shown.contains("\"tlsKey\": \"key.pem\""), "\(shown)")
    }
}
