import Foundation
import JuiceTestSupport
import Testing
#if canImport(NATSPlugin)
import CNATSLoader
import NATSPlugin

/// Bad input gets one clear line and loses nothing.
@Suite(.enabled(if: FleetEnvironment.isAvailable, FleetEnvironment.skipNote), .serialized)
struct FleetBadInputTests {
    static func lag(_ machine: FleetMachine) async throws -> String {
        try await machine.run(["subscribers", "--json"]).output
    }

    @Test func badURLOrCredentialsFileIsAConfigError() async throws {
        for (section, path) in [
            (#"{"type": "nats", "url": "http://127.0.0.1:4222"}"#, "subscribers[0].url"),
            (#"{"type": "nats", "url": "nats://127.0.0.1:4222", "credentials": "missing.creds"}"#, "subscribers[0].credentials"),
            (#"{"type": "nats", "url": "nats://127.0.0.1:4222", "stream": "A.B"}"#, "subscribers[0].stream"),
        ] {
            let machine = try FleetMachine("shop-1", subscribers: "[\(section)]")
            let (status, _) = try await machine.run(["config", "check"])
            #expect(status == 78)
            let lines = machine.errors.split(separator: "\n")
            #expect(lines.count == 1 && lines[0].contains(path), "\(machine.errors)")
        }
        let badName = try FleetMachine("shop.1", subscribers: "[]")
        #expect(try await badName.run(["config", "check"]).status == 78)
        #expect(badName.errors.contains("machine"))
    }

    @Test func noServerIsUnavailable() async throws {
        let machine = try FleetMachine("shop-1", subscribers: "[]", extra: #""fleet": {"url": "nats://127.0.0.1:1", "timeoutSeconds": 1}"#)
        for command in [["fleet", "stock"], ["fleet", "watch"]] {
            #expect(try await machine.run(command).status == 69)
        }
        let lines = machine.errors.split(separator: "\n")
        #expect(lines.count == 2 && lines.allSatisfy { $0.contains("nats-server") }, "\(machine.errors)")
        #expect(try await machine.run(["fleet", "stock", "--nats", "nats://"]).status == 78)
    }

    #if os(Linux)
    /// A `juice` built with libnats, run where the NATS C client cannot be loaded (its
    /// runtime missing, or broken: here a file that is no library, found first through
    /// `LD_LIBRARY_PATH`): one line that says what to install, and exit 69.
    @Test func aNATSClientThatCannotBeLoadedIsOneLineAndUnavailable() async throws {
        let machine = try FleetMachine("shop-1", subscribers: "[]", extra: #""fleet": {"url": "nats://127.0.0.1:1", "timeoutSeconds": 1}"#)
        let libraries = machine.directory.file("broken-libraries")
        try FileManager.default.createDirectory(atPath: libraries, withIntermediateDirectories: true)
        // The names the loader tries: the header's major.minor, then the major.
        for name in ["libnats.so.\(NATS_VERSION_MAJOR).\(NATS_VERSION_MINOR)", "libnats.so.\(NATS_VERSION_MAJOR)"] {
            try Data("not a library".utf8).write(to: URL(fileURLWithPath: libraries + "/" + name))
        }
        #expect(try await machine.run(["fleet", "stock"], environment: ["LD_LIBRARY_PATH": libraries]).status == 69)
        let lines = machine.errors.split(separator: "\n")
        #expect(lines.count == 1, "\(machine.errors)")
        #expect(lines.first?.contains("cannot load the NATS C client") == true, "\(machine.errors)")
        #expect(lines.first?.contains("install the libnats runtime") == true, "\(machine.errors)")
    }
    #endif

    @Test(.timeLimit(.minutes(1)))
    func unreachableRefusedOrMismatchedKeepsTheEvents() async throws {
        let directory = try TemporaryDirectory(prefix: "juice-fleet-")
        let server = try NATSServerProcess(directory: directory, arguments: ["--auth", "s3cret-token"])
        try await server.start()
        defer { server.stop() }
        // A stream that exists with other subjects.
        let admin = try NATSConnection(NATSOptions(servers: [server.url], token: "s3cret-token", timeout: 5))
        try await offPool { try admin.ensureStream("OTHER", subjects: "other.>", replicas: 1) }
        let cases: [(String, String)] = [
            (#"{"type": "nats", "url": "nats://127.0.0.1:1", "timeoutSeconds": 1}"#, "No server available"),
            (#"{"type": "nats", "url": "\#(server.url)", "token": "wrong", "timeoutSeconds": 2}"#, "uthorization"),
            (#"{"type": "nats", "url": "\#(server.url)", "token": "s3cret-token", "stream": "OTHER"}"#, "exists with subjects other.>"),
        ]
        for (section, why) in cases {
            let machine = try FleetMachine("shop-1", subscribers: "[\(section)]")
            #expect(try await machine.run(["order", "kiwi", "--quiet"]).status == 0)
            // The order left delivery to a background run, which made the first attempt;
            // `juice deliver` says why it waits (stderr), or why delivery stopped (stdout).
            let (status, output) = try await machine.run(["deliver"])
            #expect(status == 75, "\(machine.errors)")
            #expect((machine.errors + output).contains(why), "\(machine.errors)\(output)")
            #expect(!output.contains("s3cret-token"))
            #expect(!machine.errors.contains("s3cret-token"))
            // The events wait in the journal.
            let subscribers = try await Self.lag(machine)
            #expect(subscribers.contains("\"lag\":2"), "\(subscribers)")
        }
        admin.close()
    }
}
#endif
