import Foundation
import JuiceMakerCore
import JuiceTestSupport
import SQLiteStore
import Testing

/// `juice store recover | check | backup` on the files people actually have: a copy
/// cut short, an empty file, a store marked damaged.
@Suite(.tags(.process), .notInUnitRun, .offPool) struct StoreRecoveryCLITests {
    /// A store of about 330 events at `path`, written in this process and closed; its events.
    private func history(at path: String) throws -> [EventEnvelope] {
        let maker = try JuiceMaker(store: SQLiteStore(path: path, durability: .normal))
        for step in 0..<150 {
            if step % 4 == 3 { try maker.add(8, of: .banana) } else { try maker.make(step % 2 == 0 ? .banana : .mangoKiwi) }
            if step % 10 == 9 { try maker.add(10, of: .kiwi) }
        }
        return try SQLiteStore(path: path).events(after: 0, limit: .max)
    }

    @Test func aCopyCutShortIsRecoveredAsFarAsItGoes() throws {
        let sandbox = try JuiceSandbox()
        let original = sandbox.root + "/work/original.db"
        let events = try history(at: original)
        let stock = try SQLiteStore(path: original).stock()
        let bytes = try #require(FileManager.default.contents(atPath: original))
        for (name, length) in [("cut.db", 100_000), ("lastpage.db", bytes.count - 4096)] {
            try bytes.prefix(length).write(to: URL(fileURLWithPath: sandbox.root + "/work/" + name))
            let result = try sandbox.run(["--store", name, "store", "recover", "--to", "new-" + name, "--json"])
            #expect(result.status == 0, "\(name): \(result.stderr)")
            let report = try #require(try result.json() as? [String: Any])
            let saved = try #require(report["events"] as? Int)
            #expect(saved > 0 && saved <= events.count, "\(name): \(report)")
            let cut = try #require(report["cutShort"] as? [String: Any], "\(report)")
            #expect(cut["size"] as? Int == length && cut["expected"] as? Int == bytes.count)
            let recovered = try SQLiteStore(path: sandbox.root + "/work/new-" + name)
            #expect(try recovered.stock() == stock)
            let kept = try recovered.events(after: 0, limit: .max)
            #expect(kept.count == saved)
            #expect(kept.allSatisfy { events[Int($0.sequence) - 1] == $0 }, "an event recovered is not the original's")
            let text = try sandbox.run(["--store", name, "store", "recover", "--to", "again-" + name])
            #expect(text.stdout.contains("the file is cut short (\(length) of the \(bytes.count) bytes"), "\(text.stdout)")
        }
        // Too short for a header, nothing but page 1, not a database at all: the error
        // does not send the person back to recovery, and no new file is left.
        let noise = Data((0..<20_000).map { UInt8(truncatingIfNeeded: $0 &* 7_919 &+ $0 >> 5) })
        for (name, data) in [("stub.db", bytes.prefix(50)), ("header.db", bytes.prefix(4096)), ("noise.db", noise)] {
            try data.write(to: URL(fileURLWithPath: sandbox.root + "/work/" + name))
            let stub = try sandbox.run(["--store", name, "store", "recover", "--to", "new-" + name])
            #expect(stub.status == 74, "\(name): \(stub.stdout)")
            #expect(stub.stderr.split(separator: "\n").count == 1, "\(stub.stderr)")
            #expect(!stub.stderr.contains("store recover"), "\(stub.stderr)")
            #expect(stub.stderr.contains("restore a backup"), "\(stub.stderr)")
            #expect(!FileManager.default.fileExists(atPath: sandbox.root + "/work/new-" + name))
            if name != "header.db" {
                // Not a store: no damage mark either (a store cut short is marked, as damage is).
                #expect(!FileManager.default.fileExists(atPath: sandbox.root + "/work/\(name).damaged"))
            }
        }
    }

    @Test func anEmptyFileIsNeitherCheckedNorRecoveredAndBecomesAUserOnlyStore() throws {
        let sandbox = try JuiceSandbox()
        let path = sandbox.root + "/work/empty.db"
        #expect(FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o644]))
        for arguments in [["store", "recover", "--to", "new.db"], ["store", "check"], ["store", "backup", "copy.db"]] {
            let result = try sandbox.run(["--store", "empty.db"] + arguments)
            #expect(result.status == 74, "\(arguments): \(result.stdout)")
            #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
            #expect(result.stderr.contains("the file is empty"), "\(arguments): \(result.stderr)")
            #expect(!result.stderr.contains("No such file"), "\(result.stderr)")
            #expect(!result.stdout.contains("ok"), "\(result.stdout)")
        }
        let beside = try FileManager.default.contentsOfDirectory(atPath: sandbox.root + "/work").filter {
            $0.hasPrefix("empty.db") || $0.hasPrefix("new.db") || $0.hasPrefix("copy.db")
        }
        #expect(beside == ["empty.db"], "\(beside)")
        #expect(FileManager.default.contents(atPath: path)?.isEmpty == true)

        let stock = try sandbox.run(["--store", "empty.db", "stock"])
        #expect(stock.status == 0, "\(stock.stderr)")
        var info = stat()
        #expect(stat(path, &info) == 0 && info.st_mode & 0o777 == 0o600, "mode \(String(info.st_mode & 0o777, radix: 8))")
    }

    @Test func aStoreMarkedDamagedIsNotBackedUp() throws {
        let sandbox = try JuiceSandbox()
        _ = try history(at: sandbox.storePath)
        // The journal's first leaf, damaged behind juice's back; opening finds it.
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: sandbox.storePath))
        try handle.seek(toOffset: 11 * 4096)
        let bytes = try handle.read(upToCount: 12) ?? Data()
        try handle.seek(toOffset: 11 * 4096)
        try handle.write(contentsOf: Data(bytes.map { $0 ^ 0xFF }))
        try handle.close()
        #expect(try sandbox.run(["store", "check"]).status == 74)

        let backup = try sandbox.run(["store", "backup", "copy.db"])
        #expect(backup.status == 74, "\(backup.stdout)")
        #expect(backup.stderr.split(separator: "\n").count == 1, "\(backup.stderr)")
        #expect(backup.stderr.contains("not backed up"), "\(backup.stderr)")
        #expect(backup.stderr.contains("juice store recover --to"), "\(backup.stderr)")
        #expect(!FileManager.default.fileExists(atPath: sandbox.root + "/work/copy.db"))
    }
}

/// What a recovery lost, through the CLI: said by `store recover`, shown by `juice
/// subscribers` until `juice subscribers acknowledge`, and new events numbered after
/// every cursor; an order on a store whose journal is at the last sequence exits 74.
@Suite(.tags(.process), .notInUnitRun, .offPool) struct StoreLossesCLITests {
    private static let config = """
        { "initialStock": 1000, "backgroundDelivery": false,
          "subscribers": [ { "type": "command", "name": "feed it", "enabled": false, "command": ["/bin/cat"] } ] }
        """

    @Test func lostEventsAreShownUntilAcknowledged() throws {
        let sandbox = try JuiceSandbox(config: Self.config)
        let path = sandbox.root + "/work/juice.db"
        do {
            // Closed before the copy is cut: the file holds every commit.
            let maker = try JuiceMaker(store: SQLiteStore(path: path, durability: .normal))
            for _ in 0..<150 { try maker.make(.banana) }
        }
        let last = try SQLiteStore(path: path).lastSequence()
        try SQLiteStore(path: path).setCursor(named: "feed it", to: last - 30)
        let bytes = try #require(FileManager.default.contents(atPath: path))
        try bytes.prefix(bytes.count - 3 * 4096).write(to: URL(fileURLWithPath: sandbox.root + "/work/cut.db"))

        let recover = try sandbox.run(["--store", "cut.db", "store", "recover", "--to", "new.db"])
        #expect(recover.status == 0, "\(recover.stderr)")
        #expect(recover.stdout.contains("subscriber feed it had not been sent events"), "\(recover.stdout)")
        let listed = try sandbox.run(["--store", "new.db", "subscribers"])
        let line = try #require(listed.stdout.split(separator: "\n").first { $0.contains("lost events") }, "\(listed.stdout)")
        #expect(line.hasSuffix("juice subscribers acknowledge 'feed it'"), "\(line)")
        let json = try sandbox.run(["--store", "new.db", "subscribers", "--json"])
        #expect(json.stdout.contains("\"lostEvents\""), "\(json.stdout)")

        let order = try sandbox.run(["--store", "new.db", "stock", "add", "banana", "5"])
        #expect(order.status == 0, "\(order.stderr)")
        #expect(try SQLiteStore(path: sandbox.root + "/work/new.db").lastSequence() > last)

        let unknown = try sandbox.run(["--store", "new.db", "subscribers", "acknowledge", "nobody"])
        #expect(unknown.status == 65 && unknown.stderr.split(separator: "\n").count == 1, "\(unknown.stderr)")
        let acknowledged = try sandbox.run(["--store", "new.db", "subscribers", "acknowledge", "feed it"])
        #expect(acknowledged.status == 0 && acknowledged.stdout.contains("acknowledged"), "\(acknowledged.stderr)")
        let after = try sandbox.run(["--store", "new.db", "subscribers"])
        #expect(!after.stdout.contains("lost events"), "\(after.stdout)")
    }

    @Test func anOrderPastTheLastSequenceExits74WithOneLine() throws {
        let sandbox = try JuiceSandbox(config: Self.config)
        let path = sandbox.root + "/work/juice.db"
        try JuiceMaker(store: SQLiteStore(path: path, durability: .normal)).make(.banana)
        let store = try SQLiteStore(path: path)
        let copy = try #require(try store.events(after: 0, limit: .max).last)
        let crafted = EventEnvelope(
            sequence: .max, id: EventID(high: .max, low: 1), time: copy.time, source: copy.source, changeID: copy.changeID, event: copy.event)
        let stock = try store.stock()
        try tamper(
            path,
            "INSERT INTO journal (sequence, id, time, type, change_id, event) SELECT \(Int64.max), '\(crafted.id)', time, type, change_id, '\(CloudEventFormat.encode(crafted))' FROM journal WHERE sequence = \(copy.sequence)"
        )
        let order = try sandbox.run(["--store", "juice.db", "order", "banana"])
        #expect(order.status == 74, "\(order.stderr)")
        #expect(order.stderr.split(separator: "\n").count == 1 && order.stderr.contains("no event may take a sequence past"), "\(order.stderr)")
        #expect(try SQLiteStore(path: path).stock() == stock)
    }
}
