import Foundation
import JuiceMakerCore
import JuiceTestSupport
import SQLiteStore
import Testing
import Locking

/// The store in one process: what it keeps, what it refuses, what survives reopening.
@Suite(.tags(.unit), .offPool) struct SQLiteStoreTests {
    @Test func aNewStoreHoldsTheInitialStockAndAnEmptyJournal() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try SQLiteStore(path: directory.file("juice.db"), initialStock: Stock(repeating: 7))
        #expect(try store.stock() == Stock(repeating: 7))
        #expect(try store.lastSequence() == 0)
        #expect(try store.events(after: 0, limit: 10).isEmpty)
    }

    @Test func theInitialStockIsWrittenOnlyWhenTheFileIsCreated() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("juice.db")
        try JuiceMaker(store: SQLiteStore(path: path)).make(.mangoKiwi)
        let reopened = try SQLiteStore(path: path, initialStock: Stock(repeating: 99))
        #expect(try reopened.stock() == Stock(strawberry: 10, banana: 10, pineapple: 10, kiwi: 9, mango: 8))
    }

    @Test func committedEventsReadBackEqualAndInOrder() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try SQLiteStore(path: directory.file("juice.db"))
        let maker = JuiceMaker(store: store)
        let published = Locked<[EventEnvelope]>([])
        let subscription = try maker.subscribe("test") { envelope in published.withLock { $0.append(envelope) } }
        defer { subscription.cancel() }
        #expect(try maker.make(.mangoKiwi) == .made(consumed: FruitAmounts(kiwi: 1, mango: 2)))
        #expect(try maker.make(.strawberry) == .insufficient(shortages: FruitAmounts(strawberry: 6)))
        try maker.add(5, of: .kiwi)
        let journal = try store.events(after: 0, limit: 100)
        #expect(journal == published.withLock { $0 })
        #expect(journal.map(\.sequence) == [1, 2, 3, 4, 5])
        #expect(try store.events(after: 2, limit: 2).map(\.sequence) == [3, 4])
        #expect(try store.lastSequence() == 5)
        #expect(try StoreInvariants(store: store).violations.isEmpty)
    }

    @Test func decideRunsOnceAndItsErrorWritesNothing() throws {
        struct Refused: Error {}
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try SQLiteStore(path: directory.file("juice.db"))
        var calls = 0
        #expect(throws: Refused.self) {
            try store.commit { _, _ in
                calls += 1
                throw Refused()
            }
        }
        #expect(calls == 1)
        #expect(try store.stock() == Stock(repeating: 10))
        #expect(try store.lastSequence() == 0)
    }

    @Test func aNegativeQuantityIsRefusedAndNothingWritten() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try SQLiteStore(path: directory.file("juice.db"))
        #expect(throws: StoreError.self) {
            try store.commit { current, _ in
                var stock = current
                stock.kiwi = -1
                return StoreChange(stock: stock, events: [])
            }
        }
        #expect(try store.stock() == Stock(repeating: 10))
    }

    @Test func cursorsOnlyMoveForward() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try SQLiteStore(path: directory.file("juice.db"))
        #expect(try store.cursor(named: "webhook") == 0)
        try store.setCursor(named: "webhook", to: 5)
        try store.setCursor(named: "webhook", to: 3)
        try store.setCursor(named: "logger", to: 1)
        #expect(try store.cursor(named: "webhook") == 5)
        #expect(try store.cursors() == ["webhook": 5, "logger": 1])
    }

    @Test func deadLettersAreKeptPerSubscriberOldestFirst() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try SQLiteStore(path: directory.file("juice.db"))
        var ids = EventIDGenerator()
        let letters = [
            DeadLetter(subscriber: "webhook", sequence: 4, eventID: ids.next(unixMilliseconds: 1), attempts: 5, lastError: "503", recordedAt: 10),
            DeadLetter(subscriber: "command", sequence: 2, eventID: ids.next(unixMilliseconds: 2), attempts: 3, lastError: "exit 1", recordedAt: 11),
            DeadLetter(subscriber: "webhook", sequence: 7, eventID: ids.next(unixMilliseconds: 3), attempts: 5, lastError: "timeout", recordedAt: 12),
        ]
        for letter in letters { try store.recordDeadLetter(letter) }
        #expect(try store.deadLetters(for: nil) == letters)
        #expect(try store.deadLetters(for: "webhook") == [letters[0], letters[2]])
        try store.removeDeadLetters(for: "webhook", sequences: [4])
        #expect(try store.deadLetters(for: nil) == [letters[1], letters[2]])
    }

    @Test func missingDirectoriesAreCreatedForTheUserOnly() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("state/juice-maker/juice.db")
        _ = try SQLiteStore(path: path)
        for created in ["state", "state/juice-maker"] {
            let attributes = try FileManager.default.attributesOfItem(atPath: directory.file(created))
            #expect((attributes[.posixPermissions] as? Int).map { $0 & 0o077 } == 0, "\(created) is open to others")
        }
    }

    @Test func theDefaultPathFollowsXDGStateHome() {
        #expect(SQLiteStore.defaultPath(environment: ["XDG_STATE_HOME": "/s", "HOME": "/h"]) == "/s/juice-maker/juice.db")
        #expect(SQLiteStore.defaultPath(environment: ["HOME": "/h"]) == "/h/.local/state/juice-maker/juice.db")
        #expect(SQLiteStore.defaultPath(environment: ["XDG_STATE_HOME": "relative", "HOME": "/h"]) == "/h/.local/state/juice-maker/juice.db")
    }

    /// Without HOME (or with an empty one) the home directory is the account's, as
    /// /etc/passwd gives it for this process's user ("/" for a user it does not list).
    @Test func withoutHomeTheAccountsHomeDirectoryIsUsed() throws {
        let passwd = try String(contentsOfFile: "/etc/passwd", encoding: .utf8)
        let fields = passwd.split(separator: "\n").map { $0.split(separator: ":", omittingEmptySubsequences: false) }
        let home = fields.first { $0.count >= 7 && $0[2] == "\(getuid())" }.map { String($0[5]) } ?? "/"
        for environment in [[:], ["HOME": ""]] {
            #expect(SQLiteStore.defaultPath(environment: environment) == home + "/.local/state/juice-maker/juice.db")
        }
    }

    /// Threads ordering, restocking and reading at once on one store object.
    @Test func manyThreadsKeepTheInvariants() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try SQLiteStore(path: directory.file("juice.db"), durability: .normal)
        let maker = JuiceMaker(store: store)
        let failures = Locked<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 6) { worker in
            do {
                for step in 0..<100 {
                    if worker == 0 {
                        _ = try store.events(after: Int64(step), limit: 20)
                        _ = try store.waitForEvents(after: Int64(step), timeout: .milliseconds(1))
                    } else if step % 3 == 0 {
                        try maker.add(4, of: Fruit.allCases[step % 5])
                    } else {
                        try maker.make(Juice.allCases[(worker + step) % 7])
                    }
                }
            } catch {
                failures.withLock { $0.append("\(error)") }
            }
        }
        #expect(failures.withLock { $0 } == [])
        #expect(try StoreInvariants(store: store).violations == [])
    }
}
