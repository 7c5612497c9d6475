import Foundation
import JuiceTestSupport
import Testing
import NATSClient

/// The fleet against real `nats-server -js` processes on loopback.
@Suite(.tags(.nats, .process, .slow), .notInUnitRun, .requiresNATS, .serialized)
struct FleetIntegrationTests {
    /// A `nats` subscriber section for `url`, retrying every 0.25 s `retries` times (the
    /// outages here last seconds; no event may become a dead letter).
    static func natsSubscriber(_ url: String, replicas: Int = 1, timeoutSeconds: Double = 1, retries: Int = 60) -> String {
        let schedule = Array(repeating: "0.25", count: retries).joined(separator: ",")
        let keys = #""replicas": \#(replicas), "timeoutSeconds": \#(timeoutSeconds), "retrySchedule": [\#(schedule)]"#
        return #"[{"type": "nats", "url": "\#(url)", \#(keys)}]"#
    }

    /// Every message of the stream: its event id (`Nats-Msg-Id`, checked against the body's id).
    static func streamIDs(_ url: String, stream: String = "JUICEMAKER") async throws -> [String] {
        try await streamMessages(url, stream: stream).map(\.id)
    }

    /// Every message of `stream`, read by a reader of its own (not `juice`), in the stream's order.
    static func streamMessages(_ url: String, stream: String = "JUICEMAKER") async throws -> [StreamedMessage] {
        let messages = try await offPool {
            // A cluster that just lost a node may take a while to place a new consumer (seen
            // to take more than four tries under load): try a few times.
            for attempt in 1... {
                do {
                    return try readStream(url, stream: stream)
                } catch let error as NATSError where error.kind == .timeout && attempt < 7 {
                    continue
                }
            }
            return []
        }
        for message in messages {
            #expect(message.contentType == "application/cloudevents+json")
            #expect(message.bodyHasID, "\(message.id)")
        }
        return messages
    }

    struct StreamedMessage: Sendable {
        let id: String
        let contentType: String?
        let bodyHasID: Bool
        /// The message's text: the event as the machine published it.
        let text: String
        /// Its sequence in the stream.
        let streamSequence: UInt64
    }

    private static func readStream(_ url: String, stream: String) throws -> [StreamedMessage] {
        let connection = try NATSConnection(NATSOptions(servers: url.split(separator: ",").map(String.init), timeout: 10))
        defer { connection.close() }
        let total = try connection.streamMessageCount(stream)
        guard total > 0 else { return [] }
        let reader = try connection.reader(stream: stream, filter: "juicemaker.>", start: .all)
        defer { reader.stop() }
        var messages: [StreamedMessage] = []
        while let message = try reader.next(timeout: 5) {
            let id = message.header("Nats-Msg-Id") ?? "?"
            messages.append(
                StreamedMessage(
                    id: id, contentType: message.header("content-type"), bodyHasID: message.text.contains("\"id\":\"\(id)\""),
                    text: message.text, streamSequence: message.metadata?.streamSequence ?? 0))
            if message.metadata?.pending == 0 { break }
        }
        return messages
    }

    /// Waits until the stream holds `count` messages (or `seconds` pass); returns the count seen.
    static func waitForStream(_ url: String, count: UInt64, within seconds: Double) async -> UInt64 {
        (try? await offPool { waitForStreamBlocking(url, count: count, within: seconds) }) ?? 0
    }

    private static func waitForStreamBlocking(_ url: String, count: UInt64, within seconds: Double) -> UInt64 {
        var seen: UInt64 = 0
        _ = eventuallyOnThisThread(within: .milliseconds(Int(seconds * 1000)), every: .milliseconds(200)) {
            if let connection = try? NATSConnection(NATSOptions(servers: url.split(separator: ",").map(String.init), timeout: 2, reconnects: false)) {
                seen = (try? connection.streamMessageCount("JUICEMAKER")) ?? seen
                connection.close()
            }
            return seen >= count
        }
        return seen
    }

    /// The orders a `juice shell` has made so far, by its answers.
    static func made(_ shell: RunningProgram) -> Int {
        shell.stdout.components(separatedBy: "Here's your").count - 1
    }

    /// Orders `count` mango-kiwi juices on every machine at once, each through one
    /// `juice shell` fed line by line, calling `between` after each quarter (with the shells).
    /// The shells are left to finish (`finished()`).
    static func order(
        _ machines: [JuiceSandbox], count: Int, between: (Int, [RunningProgram]) async -> Void
    ) async throws -> [RunningProgram] {
        let shells = try machines.map { try $0.start(["shell"]) }
        for quarter in 0..<4 {
            let lines = String(repeating: "mango-kiwi\n", count: count / 4)
            for shell in shells { try shell.type(lines) }
            // What happens between the quarters lands while this quarter's orders are
            // being made: once every machine has made a few of them.
            let started = await eventually { shells.allSatisfy { made($0) >= quarter * count / 4 + 5 } }
            #expect(started, "quarter \(quarter): the shells made no orders")
            await between(quarter, shells)
        }
        for shell in shells { try shell.type("quit\n") }
        return shells
    }

    @Test(.timeLimit(.minutes(3)))
    func outageLosesNothingAndDuplicatesNothing() async throws {
        let server = try await NATSServerProcess.started()
        defer { server.stop() }
        let machines = try ["shop-a", "shop-b"].map { try JuiceSandbox.fleetMachine($0, subscribers: Self.natsSubscriber(server.url)) }
        // One publisher per machine, as a shop runs it: juice deliver --follow.
        let publishers = try machines.map { try $0.start(["deliver", "--follow"], inputFile: "/dev/null").process }
        defer { publishers.forEach { terminate($0) } }  // at the end only (SIGTERM exits at once)
        // Both machines order at once; the server goes down and comes back twice meanwhile.
        var lagDuringOutage: [String] = []
        let shells = try await Self.order(machines, count: 200) { quarter, shells in
            switch quarter {
            case 0, 2:
                await server.halt()
                // The outage lasts while every shell makes orders: ten more each (or its last).
                let before = shells.map(Self.made)
                let ordered = await eventually {
                    zip(shells, before).allSatisfy { shell, made in Self.made(shell) >= min(made + 10, (quarter + 1) * 50) }
                }
                #expect(ordered, "the shells made no orders while NATS was down")
            default:
                // While NATS is down the events wait in the journal, and `juice subscribers` shows the lag.
                if let output = try? await machines[0].running(["subscribers", "--json"]).stdout { lagDuringOutage.append(output) }
                try? await Task.sleep(for: .milliseconds(1500))  // not a wait: longer than a publish's timeout (1 s), so publishes under way fail
                try? await server.start()
            }
        }
        for shell in shells { _ = await shell.finished() }
        var journals: [[String]] = []
        for machine in machines { journals.append(try await machine.eventIDs()) }
        let union = Set(journals.flatMap { $0 })
        #expect(journals.allSatisfy { $0.count == 200 * 3 }, "each order commits juice.made and two stock.changed")
        let seen = await Self.waitForStream(server.url, count: UInt64(union.count), within: 60)
        #expect(seen == UInt64(union.count), "stream holds \(seen) of \(union.count); errors: \(machines.map(\.errors))")
        let streamed = try await Self.streamIDs(server.url)
        #expect(streamed.count == Set(streamed).count, "duplicates in the stream")
        #expect(Set(streamed) == union, "missing \(union.subtracting(streamed).count), extra \(Set(streamed).subtracting(union).count)")
        // The outages were felt: publishes failed and were retried.
        let errors = machines.map(\.errors).joined()
        #expect(errors.contains("not delivered"), "no publish failed: the outages missed the orders")
        #expect(lagDuringOutage.count == 2 && lagDuringOutage.allSatisfy { !$0.contains("\"lag\":0") }, "\(lagDuringOutage)")
        // Nothing left behind: every machine's cursor reaches its journal's end (the last
        // PubAcks may still be on their way when the stream is complete).
        for machine in machines {
            var output = ""
            // Each look is a juice run of its own (tens of milliseconds): no pause between them.
            for _ in 0..<300 where !output.contains("\"lag\":0") {
                output = try await machine.running(["subscribers", "--json"]).stdout
            }
            #expect(output.contains("\"lag\":0"), "\(machine.name): \(output)")
        }
        for publisher in publishers { await terminated(publisher) }
    }

    @Test(.timeLimit(.minutes(3)))
    func clusterWithThreeReplicasSurvivesANodeKilled() async throws {
        let directory = try TemporaryDirectory(prefix: "juice-fleet-")
        let clusterPorts = try (0..<3).map { _ in try freeLoopbackPort() }
        let nodes = try (0..<3).map { index in
            try NATSServerProcess(
                name: "n\(index + 1)", directory: directory,
                cluster: (clusterPorts[index], clusterPorts.enumerated().filter { $0.offset != index }.map(\.element)))
        }
        defer { nodes.forEach { $0.stop() } }
        for node in nodes { try await node.start() }
        let urls = nodes.map(\.url).joined(separator: ",")
        let machines = try ["shop-a", "shop-b"].map { try JuiceSandbox.fleetMachine($0, subscribers: Self.natsSubscriber(urls, replicas: 3)) }
        let publishers = try machines.map { try $0.start(["deliver", "--follow"], inputFile: "/dev/null").process }
        defer { publishers.forEach { terminate($0) } }  // at the end only (SIGTERM exits at once)
        let shells = try await Self.order(machines, count: 200) { quarter, _ in
            // Mid-stream, one node dies without a word: once the stream (created with
            // three replicas, which needs every node) holds the first events.
            if quarter == 1 {
                #expect(await Self.waitForStream(urls, count: 1, within: 60) >= 1, "nothing published before the kill")
                nodes[0].kill9()
            }
        }
        for shell in shells { _ = await shell.finished() }
        var journals: [[String]] = []
        for machine in machines { journals.append(try await machine.eventIDs()) }
        let union = Set(journals.flatMap { $0 })
        #expect(union.count == 2 * 200 * 3)
        let survivors = nodes.dropFirst().map(\.url).joined(separator: ",")
        let seen = await Self.waitForStream(survivors, count: UInt64(union.count), within: 90)
        #expect(seen == UInt64(union.count), "stream holds \(seen) of \(union.count); errors: \(machines.map(\.errors))")
        let streamed = try await Self.streamIDs(survivors)
        #expect(streamed.count == Set(streamed).count, "duplicates in the stream")
        #expect(Set(streamed) == union, "missing \(union.subtracting(streamed).count), extra \(Set(streamed).subtracting(union).count)")
        for publisher in publishers { await terminated(publisher) }
    }
}
