import Foundation
import JuiceTestSupport
import Testing
#if canImport(NATSClient)
import CNATSLoader
import NATSClient

/// Bad input gets one clear line and loses nothing.
@Suite(.tags(.nats, .process, .slow), .notInUnitRun, .enabled(if: FleetEnvironment.isAvailable, FleetEnvironment.skipNote), .serialized)
struct FleetBadInputTests {
    static func lag(_ machine: JuiceSandbox) async throws -> String {
        try await machine.running(["subscribers", "--json"]).stdout
    }

    @Test func badURLOrCredentialsFileIsAConfigError() async throws {
        for (section, path) in [
            (#"{"type": "nats", "url": "http://127.0.0.1:4222"}"#, "subscribers[0].url"),
            (#"{"type": "nats", "url": "nats://127.0.0.1:4222", "credentials": "missing.creds"}"#, "subscribers[0].credentials"),
            (#"{"type": "nats", "url": "nats://127.0.0.1:4222", "stream": "A.B"}"#, "subscribers[0].stream"),
        ] {
            let machine = try JuiceSandbox.fleetMachine("shop-1", subscribers: "[\(section)]")
            let status = try await machine.running(["config", "check"]).status
            #expect(status == 78)
            let lines = machine.errors.split(separator: "\n")
            #expect(lines.count == 1 && lines[0].contains(path), "\(machine.errors)")
        }
        // The fleet section's names are checked as the subscriber's: by `config check`, and
        // by the fleet commands before they connect (the URL leads nowhere: not reached).
        for (fleet, path) in [(#""subjectPrefix": "juicemaker.>""#, "fleet.subjectPrefix"), (#""stream": "A B""#, "fleet.stream")] {
            let machine = try JuiceSandbox.fleetMachine(
                "shop-1", subscribers: "[]", extra: #""fleet": {"url": "nats://127.0.0.1:1", "timeoutSeconds": 1, \#(fleet)}"#)
            for command in [["config", "check"], ["fleet", "stock"], ["fleet", "deliver"]] {
                let result = try await machine.running(command)
                #expect(result.status == 78, "\(command)")
                let lines = result.stderr.split(separator: "\n")
                #expect(lines.count == 1 && lines[0].contains(path), "\(command): \(result.stderr)")
            }
        }
        let badName = try JuiceSandbox.fleetMachine("shop.1", subscribers: "[]")
        #expect(try await badName.running(["config", "check"]).status == 78)
        #expect(badName.errors.contains("machine"))
    }

    @Test func noServerIsUnavailable() async throws {
        let machine = try JuiceSandbox.fleetMachine(
            "shop-1", subscribers: "[]", extra: #""fleet": {"url": "nats://127.0.0.1:1", "timeoutSeconds": 1}"#)
        for command in [["fleet", "stock"], ["fleet", "watch"], ["fleet", "metrics"]] {
            #expect(try await machine.running(command).status == 69)
        }
        let lines = machine.errors.split(separator: "\n")
        #expect(lines.count == 3 && lines.allSatisfy { $0.contains("nats-server") }, "\(machine.errors)")
        for command in [["fleet", "stock"], ["fleet", "metrics"]] {
            #expect(try await machine.running(command + ["--nats", "nats://"]).status == 78)
        }
    }

    /// `fleet.credentials` is checked by `juice config check` and is relative to the
    /// store's directory, as every path a subscriber names.
    @Test func fleetCredentialsAreCheckedRelativeToTheStore() async throws {
        let machine = try JuiceSandbox.fleetMachine(
            "shop-1", subscribers: "[]", extra: #""fleet": {"url": "nats://127.0.0.1:1", "credentials": "fleet.creds"}"#)
        try FileManager.default.createDirectory(atPath: machine.file("state"), withIntermediateDirectories: true)
        let check = ["config", "check", "--store", machine.file("state/juice.db")]
        // Beside the config, not beside the store: refused, naming where it looked.
        try Data("x".utf8).write(to: URL(fileURLWithPath: machine.file("fleet.creds")))
        let refused = try await machine.running(check)
        #expect(refused.status == 78)
        let lines = refused.stderr.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].contains("fleet.credentials") && lines[0].contains("state/fleet.creds"), "\(refused.stderr)")
        try Data("x".utf8).write(to: URL(fileURLWithPath: machine.file("state/fleet.creds")))
        #expect(try await machine.running(check).status == 0, "\(machine.errors)")
    }

    /// A reader that finds no stream says so plainly (69); one that finds the stream
    /// taking other subjects says that (78); neither quotes libnats' error numbers.
    @Test(.timeLimit(.minutes(1)))
    func aMissingOrMismatchedStreamIsSaidPlainly() async throws {
        let server = try await NATSServerProcess.started()
        defer { server.stop() }
        let machine = try JuiceSandbox.fleetMachine("shop-1", subscribers: "[]", extra: #""fleet": {"url": "\#(server.url)", "timeoutSeconds": 2}"#)
        for command in [["fleet", "stock"], ["fleet", "watch"], ["fleet", "metrics"], ["fleet", "deliver"]] {
            let result = try await machine.running(command)
            let (status, said) = (result.status, result.stderr)
            if command[1] == "deliver" {
                #expect(status == 0, "no subscriber to feed: \(said)")
                continue
            }
            #expect(status == 69, "\(command)")
            #expect(said.contains("no machine has published to JUICEMAKER yet") && said.split(separator: "\n").count == 1, "\(said)")
            #expect(!said.contains("10059"), "\(said)")
        }
        let admin = try server.connect()
        defer { admin.close() }
        try await offPool { try admin.ensureStream("JUICEMAKER", subjects: "other.>", replicas: 1) }
        for command in [["fleet", "stock"], ["fleet", "watch"], ["fleet", "metrics"]] {
            let result = try await machine.running(command)
            let (status, said) = (result.status, result.stderr)
            #expect(status == 78, "\(command)")
            #expect(said.contains("exists with subjects other.>") && !said.contains("10093"), "\(said)")
        }
    }

    #if os(Linux)
    /// A `juice` built with libnats, run where the NATS C client cannot be loaded (its
    /// runtime missing, or broken: here a file that is no library, found first through
    /// `LD_LIBRARY_PATH`): one line that says what to install, and exit 69.
    @Test func aNATSClientThatCannotBeLoadedIsOneLineAndUnavailable() async throws {
        let machine = try JuiceSandbox.fleetMachine(
            "shop-1", subscribers: "[]", extra: #""fleet": {"url": "nats://127.0.0.1:1", "timeoutSeconds": 1}"#)
        let libraries = machine.file("broken-libraries")
        try FileManager.default.createDirectory(atPath: libraries, withIntermediateDirectories: true)
        // The names the loader tries: the header's major.minor, then the major.
        for name in ["libnats.so.\(NATS_VERSION_MAJOR).\(NATS_VERSION_MINOR)", "libnats.so.\(NATS_VERSION_MAJOR)"] {
            try Data("not a library".utf8).write(to: URL(fileURLWithPath: libraries + "/" + name))
        }
        #expect(try await machine.running(["fleet", "stock"], environment: ["LD_LIBRARY_PATH": libraries]).status == 69)
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
        let cases: [(String, String, String?)] = [
            (#"{"type": "nats", "url": "nats://127.0.0.1:1", "timeoutSeconds": 1}"#, "No server available", nil),
            (
                #"{"type": "nats", "url": "\#(server.url)", "token": "wrong", "timeoutSeconds": 2}"#, "uthorization",
                "stopped (NATS refused the credentials)"
            ),
            (
                #"{"type": "nats", "url": "\#(server.url)", "token": "s3cret-token", "stream": "OTHER"}"#, "exists with subjects other.>",
                "stopped (NATS stream takes other subjects)"
            ),
        ]
        for (section, why, state) in cases {
            let machine = try JuiceSandbox.fleetMachine("shop-1", subscribers: "[\(section)]")
            #expect(try await machine.running(["order", "kiwi", "--quiet"]).status == 0)
            // The order left delivery to a background run, which made the first attempt;
            // `juice deliver` says why it waits (stderr), or why delivery stopped (stdout).
            let result = try await machine.running(["deliver"])
            let (status, output) = (result.status, result.stdout)
            #expect(status == 75, "\(machine.errors)")
            #expect((machine.errors + output).contains(why), "\(machine.errors)\(output)")
            #expect(!output.contains("s3cret-token"))
            #expect(!machine.errors.contains("s3cret-token"))
            // The events wait in the journal.
            let subscribers = try await Self.lag(machine)
            #expect(subscribers.contains("\"lag\":2"), "\(subscribers)")
            // What stopped it, in its own words: not an HTTP status.
            let table = try await machine.running(["subscribers"]).stdout
            #expect(!table.contains("410"), "\(table)")
            if let state { #expect(table.contains(state), "\(table)") }
        }
        admin.close()
    }
}
#endif
