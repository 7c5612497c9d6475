import CCrypto
import Foundation
import JuiceTestSupport
import Testing
import NATSClient
import SQLiteStore

/// `juice fleet stock` and `juice fleet deliver` against a real `nats-server -js`.
@Suite(.tags(.nats, .process, .slow), .notInUnitRun, .requiresNATS, .serialized)
struct FleetReadingTests {
    static func decode(_ text: String) -> Any? {
        try? JSONSerialization.jsonObject(with: Data(text.utf8))
    }

    @Test(.timeLimit(.minutes(2)))
    func fleetStockEqualsEachMachinesStock() async throws {
        let server = try await NATSServerProcess.started()
        defer { server.stop() }
        let orders = [["mango-kiwi", "kiwi"], ["strawberry-banana", "pineapple", "mango"]]
        let machines = try ["shop-a", "shop-b"].map {
            try JuiceSandbox.fleetMachine($0, subscribers: FleetIntegrationTests.natsSubscriber(server.url))
        }
        for (machine, juices) in zip(machines, orders) {
            // Every fruit changes at least once (the stream holds stock changes, not the initial stock).
            for fruit in ["strawberry", "banana", "pineapple", "kiwi", "mango"] {
                #expect(try await machine.running(["stock", "add", fruit, "\(machine.name.count)"]).status == 0)
            }
            for juice in juices { #expect(try await machine.running(["order", juice]).status == 0) }
            if machine.name == "shop-b" {
                // A failed order, which `fleet watch` states: nobody there can answer a question.
                #expect(try await machine.running(["stock", "set", "mango=0"]).status == 0)
                #expect(try await machine.running(["order", "mango"]).status != 0)
            }
            #expect(try await machine.running(["deliver"]).status == 0, "\(machine.errors)")
        }
        let result = try await machines[0].running(["fleet", "stock", "--json", "--nats", server.url])
        let (status, output) = (result.status, result.stdout)
        #expect(status == 0, "\(machines[0].errors)")
        let rows = try #require(Self.decode(output) as? [[String: Any]], "\(output)")
        #expect(rows.map { $0["machine"] as? String } == ["shop-a", "shop-b"])
        for (machine, row) in zip(machines, rows) {
            let localText = try await machine.running(["stock", "--json"]).stdout
            let local = try #require(Self.decode(localText) as? [String: Int])
            #expect(row["stock"] as? [String: Int] == local, "\(machine.name)")
            #expect((row["ageSeconds"] as? Double ?? 99) < 60)
        }
        // fleet watch: one machine's events from the start, as JSON lines or prefixed notifier lines.
        for json in [true, false] {
            let shown = Set(try await machines[1].eventIDs())
            let arguments = ["fleet", "watch", "--since", "all", "--machine", "shop-b", "--nats", server.url] + (json ? ["--json"] : [])
            let watch = try machines[0].start(arguments, inputFile: "/dev/null")
            _ = await eventually(within: .seconds(15)) { watch.stdout.split(separator: "\n").count >= shown.count }
            // Nothing more may come: a marker order, published after, must be the last thing shown.
            #expect(try await machines[1].running(["order", "kiwi"]).status == 0)
            #expect(try await machines[1].running(["deliver"]).status == 0, "\(machines[1].errors)")
            let ids = Set(try await machines[1].eventIDs())
            _ = await eventually(within: .seconds(15)) { watch.stdout.split(separator: "\n").count >= ids.count }
            _ = await watch.terminated()
            let lines = watch.stdout.split(separator: "\n")
            if json {
                let seen = lines.compactMap { (Self.decode(String($0)) as? [String: Any])?["id"] as? String }
                #expect(seen.count == ids.count && Set(seen) == ids, "\(lines)")
                #expect(lines.allSatisfy { $0.contains("\"source\":\"/juice-maker/shop-b\"") })
            } else {
                #expect(lines.count >= ids.count - 1 && lines.allSatisfy { $0.hasPrefix("[shop-b] ") }, "\(lines)")
                #expect(lines.contains("[shop-b] Not enough fruit.") && !watch.stdout.contains("Edit the stock?"), "\(lines)")
            }
        }
        // The table: a row per machine, a column per fruit, the age last.
        let table = try await machines[1].running(["fleet", "stock", "--nats", server.url]).stdout
        #expect(table.split(separator: "\n").count == 3 && table.contains("shop-b") && table.contains("ago"), "\(table)")
    }

    @Test(.timeLimit(.minutes(3)))
    func fleetDeliverSurvivesKillsAndEveryEventArrives() async throws {
        let server = try await NATSServerProcess.started()
        defer { server.stop() }
        // An endpoint 50 ms away, as real ones are: the kills land mid-delivery, with a
        // window of requests in flight.
        let hook = LoopbackHTTPServer(latency: .milliseconds(50)) { _, _ in .status(200) }
        try hook.start()
        defer { hook.stop() }
        let key = (0..<32).map { UInt8(($0 * 37 + 11) & 0xFF) }
        let secret = "whsec_" + Data(key).base64EncodedString()
        // Two machines publish 100 orders each.
        let machines = try ["shop-a", "shop-b"].map {
            try JuiceSandbox.fleetMachine($0, subscribers: FleetIntegrationTests.natsSubscriber(server.url))
        }
        for machine in machines {
            let shell = try machine.start(["shell"])
            try shell.type(String(repeating: "mango-kiwi\n", count: 100) + "quit\n")
            _ = await shell.finished()
            #expect(try await machine.running(["deliver"]).status == 0, "\(machine.errors)")
        }
        var union = Set<String>()
        for machine in machines { union.formUnion(try await machine.eventIDs()) }
        #expect(union.count == 600)
        // The central host forwards the fleet to one webhook; it is SIGKILLed 5 times (the
        // killed ones' messages come again after the ack wait, 2 s here).
        let central = try JuiceSandbox.fleetMachine(
            "central",
            subscribers:
                #"[{"type": "webhook", "name": "central-hook", "url": "\#(hook.url)", "secret": "\#(secret)", "retrySchedule": [0.2, 0.5, 1, 1, 1, 1, 1, 1]}]"#,
            extra: #""fleet": {"url": "\#(server.url)", "ackWait": 2}"#)
        for round in 0..<5 {
            // Killed mid-stream: once it has sent a few more requests (more each round).
            let before = hook.requests.count
            let process = try central.start(["fleet", "deliver", "--follow"], inputFile: "/dev/null").process
            _ = await eventually(within: .seconds(30)) { hook.requests.count >= before + 10 + round * 10 }
            kill(process.processIdentifier, SIGKILL)
            await exited(process)
        }
        let killedAfter = Set(hook.requests.compactMap { $0.headers["webhook-id"] })
        let last = try central.start(["fleet", "deliver", "--follow"], inputFile: "/dev/null").process
        defer { terminate(last) }
        // The deadline bounds a hang only; a loaded machine delivers slowly.
        _ = await eventually(within: .seconds(180)) { union.isSubset(of: Set(hook.requests.compactMap { $0.headers["webhook-id"] })) }
        await terminated(last)
        let requests = hook.requests
        let received = Set(requests.compactMap { $0.headers["webhook-id"] })
        #expect(killedAfter.count < union.count, "the kills should land before the end")
        #expect(union.isSubset(of: received), "missing \(union.subtracting(received).count) of \(union.count); \(central.errors)")
        // Every request is signed with the secret (Standard Webhooks), body as sent.
        var bad = 0
        for request in requests {
            guard let id = request.headers["webhook-id"], let timestamp = request.headers["webhook-timestamp"],
                let signature = request.headers["webhook-signature"]
            else { bad += 1; continue }
            let message = Array("\(id).\(timestamp).".utf8) + request.body
            if signature != "v1," + Self.hmac(key: key, message) { bad += 1 }
            if !request.text.contains("\"id\":\"\(id)\"") { bad += 1 }
        }
        #expect(bad == 0)
        print("fleet deliver: \(requests.count) requests for \(union.count) events (\(requests.count - received.count) resent after kills)")
    }

    /// `juice fleet deliver` runs the logger too (its line written before the ack), and
    /// keeps a failing webhook's retry state in the local store, under `<name>@fleet`,
    /// where the next process finds it.
    @Test(.timeLimit(.minutes(2)))
    func fleetDeliverRunsTheLoggerAndKeepsRetryStateInTheStore() async throws {
        let server = try await NATSServerProcess.started()
        defer { server.stop() }
        let hook = LoopbackHTTPServer { _, _ in .status(503) }
        try hook.start()
        defer { hook.stop() }
        let machine = try JuiceSandbox.fleetMachine("shop-a", subscribers: FleetIntegrationTests.natsSubscriber(server.url))
        for juice in ["mango-kiwi", "banana"] { #expect(try await machine.running(["order", juice]).status == 0) }
        #expect(try await machine.running(["deliver"]).status == 0, "\(machine.errors)")
        let ids = Set(try await machine.eventIDs())
        let central = try JuiceSandbox.fleetMachine(
            "central",
            subscribers:
                #"[{"type": "webhook", "name": "central-hook", "url": "\#(hook.url)", "retrySchedule": [3600]}, {"type": "logger", "name": "fleet-log", "format": "json", "level": "debug", "path": "fleet.log"}]"#,
            extra: #""fleet": {"url": "\#(server.url)"}"#)
        _ = try await central.running(["fleet", "deliver"])
        let log = (try? String(contentsOfFile: central.file("fleet.log"), encoding: .utf8)) ?? ""
        let logged = Set(log.split(separator: "\n").compactMap { (Self.decode(String($0)) as? [String: Any])?["id"] as? String })
        #expect(ids.isSubset(of: logged), "logged \(logged.count) of \(ids.count): \(central.errors)")
        // The window sends each event once; each fails and waits for its own next attempt.
        #expect(Set(hook.requests.compactMap { $0.headers["webhook-id"] }) == ids, "\(central.errors)")
        #expect(hook.requests.count == ids.count, "\(central.errors)")
        let store = try SQLiteStore(path: central.file("juice.db"))
        let retry = try #require(try store.retryState(for: "central-hook@fleet"), "\(central.errors)")
        #expect(retry.attempts == 1 && retry.nextAttemptAt > Date().timeIntervalSince1970 + 3000)
        #expect(try store.retryState(for: "central-hook") == nil)
    }

    static func hmac(key: [UInt8], _ message: [UInt8]) -> String {
        var output = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        _ = HMAC(EVP_sha256(), key, Int32(key.count), message, message.count, &output, &length)
        return Data(output.prefix(Int(length))).base64EncodedString()
    }
}
