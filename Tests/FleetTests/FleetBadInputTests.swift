import CNATSLoader
import Foundation
import JuiceTestSupport
import Testing
import NATSClient

/// Bad input gets one clear line and loses nothing.
@Suite(.tags(.nats, .process, .slow), .notInUnitRun, .requiresNATS, .serialized)
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
        // Not a credentials file: refused for what it holds.
        try Data("x".utf8).write(to: URL(fileURLWithPath: machine.file("state/fleet.creds")))
        let notCreds = try await machine.running(check)
        #expect(notCreds.status == 78 && notCreds.stderr.contains("is not a NATS .creds file"), "\(notCreds.stderr)")
        let creds = "-----BEGIN NATS USER JWT-----\neyJ0\n------END NATS USER JWT------\n"
        try Data(creds.utf8).write(to: URL(fileURLWithPath: machine.file("state/fleet.creds")))
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

/// Where libnats is not on this machine, or is no library: the fleet's commands and a
/// `nats` subscriber say so in one line, what to install and that no rebuild is needed,
/// with exit 69. Asserted the same on every machine: every name the loader tries is
/// found first, through `LD_LIBRARY_PATH`, as a file that is no library. No server.
@Suite(.tags(.process), .notInUnitRun)
struct NATSLibraryMissingTests {
    static func machineWithoutLibnats() throws -> (JuiceSandbox, [String: String]) {
        let machine = try JuiceSandbox.fleetMachine(
            "shop-1", subscribers: #"[{"type": "nats", "url": "nats://127.0.0.1:1", "timeoutSeconds": 1}]"#,
            extra: #""fleet": {"url": "nats://127.0.0.1:1", "timeoutSeconds": 1}"#)
        let libraries = machine.file("broken-libraries")
        try FileManager.default.createDirectory(atPath: libraries, withIntermediateDirectories: true)
        var count = 0
        let names = juice_nats_library_names(&count)
        for index in 0..<count {
            let name = String(cString: names![index]!)
            guard !name.contains("/") else { continue }
            try Data("not a library".utf8).write(to: URL(fileURLWithPath: libraries + "/" + name))
        }
        return (machine, ["LD_LIBRARY_PATH": libraries])
    }

    static func expectOneLineToInstall(_ errors: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let lines = errors.split(separator: "\n")
        #expect(lines.count == 1, "\(errors)", sourceLocation: sourceLocation)
        #expect(lines.first?.contains("the NATS C client (libnats) is not installed") == true, "\(errors)", sourceLocation: sourceLocation)
        #expect(lines.first?.contains("apt-get install libnats-dev") == true, "\(errors)", sourceLocation: sourceLocation)
        #expect(lines.first?.contains("no rebuild is needed") == true, "\(errors)", sourceLocation: sourceLocation)
        #expect(!errors.lowercased().contains("rebuild (") && !errors.contains("swift build"), "\(errors)", sourceLocation: sourceLocation)
    }

    #if os(Linux)
    @Test(arguments: [["fleet", "stock"], ["fleet", "watch"], ["fleet", "metrics"]])
    func aFleetCommandSaysWhatToInstall(command: [String]) async throws {
        let (machine, environment) = try Self.machineWithoutLibnats()
        #expect(try await machine.running(command, environment: environment).status == 69, "\(command)")
        Self.expectOneLineToInstall(machine.errors)
    }

    /// The `nats` subscriber keeps its events in the journal and says, once, what to
    /// install; `juice deliver` exits 75 (try again later), as for any failing delivery,
    /// and sends them once libnats is there.
    @Test func theNATSSubscriberSaysWhatToInstallAndKeepsItsEvents() async throws {
        let (machine, environment) = try Self.machineWithoutLibnats()
        #expect(try await machine.running(["order", "kiwi"], environment: environment).status == 0)
        let delivered = try await machine.running(["deliver"], environment: environment)
        #expect(delivered.status == 75, "\(machine.errors)")
        let warnings = machine.errors.split(separator: "\n").filter { $0.contains("libnats") }
        #expect(warnings.count == 1, "\(machine.errors)")
        Self.expectOneLineToInstall(String(warnings.first ?? ""))
        let lag = try await machine.running(["subscribers", "--json"], environment: environment).stdout
        #expect(lag.contains(#""lag":2"#) || lag.contains(#""lag": 2"#), "\(lag)")
    }

    /// The `nats` subscriber's config is checked as on a machine with libnats: `config
    /// check` needs no library.
    @Test func theConfigIsCheckedWithoutTheLibrary() async throws {
        let (machine, environment) = try Self.machineWithoutLibnats()
        let result = try await machine.running(["config", "check"], environment: environment)
        #expect(result.status == 0, "\(machine.errors)")
    }
    #endif
}
