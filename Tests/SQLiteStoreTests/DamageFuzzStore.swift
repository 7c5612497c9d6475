import Foundation
import JuiceMakerCore
import JuiceTestSupport
import Locking
import SQLiteStore

/// A real store for the damage fuzzer, written through the store's own API and closed,
/// with the truth about it read behind the store's back before anything is damaged.
///
/// What it holds (issue 34, item 5): a few hundred events over many journal pages
/// (orders made and failed, restocks, stock edits), events whose `source` is long
/// enough to spill into overflow pages, delivery cursors (one at the journal's end, so
/// a cut tail leaves it past the end), dead letters (two with an error text longer
/// than a page), retry states (one disabled, one with a long error).
struct FuzzStore: Sendable {
    /// The closed store's file, byte for byte.
    let bytes: [UInt8]
    let pageSize: Int
    /// What SQLite reads from the intact file.
    let truth: StoreTruth
    /// Each page's b-tree and kind (`dbstat`), by page number.
    let pages: [Int: PageRole]

    struct PageRole: Sendable {
        /// The table or index the page belongs to.
        let name: String
        /// `internal`, `leaf` or `overflow`.
        let type: String
        /// `dbstat`'s path: `/`, `/01c/`, `/01c/003+000` (cell 3's first overflow page).
        let path: String
    }

    var pageCount: Int { bytes.count / pageSize }

    /// Page numbers whose role matches.
    func pages(where matches: (PageRole) -> Bool) -> [Int] {
        pages.filter { matches($0.value) }.map(\.key).sorted()
    }

    /// The store for `seed`, built once per process.
    static func shared(seed: UInt64) throws -> FuzzStore {
        if let built = cache.withLock({ $0[seed] }) { return built }
        let built = try make(seed: seed)
        cache.withLock { $0[seed] = built }
        return built
    }

    private static let cache = Locked<[UInt64: FuzzStore]>([:])

    /// The stores created as before incremental vacuum (no pointer-map pages), as stores
    /// of earlier versions still are, and as the kept cases of these seeds were found;
    /// any other seed is a store as created now.
    static let legacyLayout: Set<UInt64> = [1, 2]

    /// A `source` of about 4.8 KB: every event of a maker with it is a row larger than a page.
    static let longSource = "urn:juice:" + String(repeating: "long-source/", count: 400)

    static func make(seed: UInt64) throws -> FuzzStore {
        let directory = try TemporaryDirectory(prefix: "juice-damagefuzz-store-")
        defer { directory.remove() }
        let path = directory.file("juice.db")
        var random = SeededGenerator(seed: seed)
        try write(at: path, random: &random, keepsFreePagesApart: !legacyLayout.contains(seed))
        guard !FileManager.default.fileExists(atPath: path + "-wal") else {
            throw RawDatabase.Failure(description: "the closed store left its -wal behind: its file is not the whole store")
        }
        let truth = try StoreTruth(path: path)
        let raw = try RawDatabase(path, readOnly: true)
        var pages: [Int: PageRole] = [:]
        for row in try raw.rows("SELECT name, pageno, pagetype, path FROM dbstat") {
            guard let number = Int(row[1]) else { continue }
            pages[number] = PageRole(name: row[0], type: row[2], path: row[3])
        }
        let pageSize = Int(try raw.value("PRAGMA page_size")) ?? 4096
        guard let data = FileManager.default.contents(atPath: path) else {
            throw RawDatabase.Failure(description: "cannot read \(path)")
        }
        return FuzzStore(bytes: [UInt8](data), pageSize: pageSize, truth: truth, pages: pages)
    }

    /// The history, through `JuiceMaker` and the store's delivery bookkeeping.
    private static func write(at path: String, random: inout SeededGenerator, keepsFreePagesApart: Bool) throws {
        var options = SQLiteStore.Options()
        options.keepsFreePagesApart = keepsFreePagesApart
        let store = try SQLiteStore(path: path, durability: .normal, options: options)
        let maker = JuiceMaker(store: store)
        let longMaker = JuiceMaker(store: store, source: longSource)
        let changes = 250 + Int(random.next() % 80)
        for step in 0..<changes {
            let juice = Juice.allCases[Int(random.next() % UInt64(Juice.allCases.count))]
            let fruit = Fruit.allCases[Int(random.next() % UInt64(Fruit.allCases.count))]
            switch random.next() % 10 {
            case 0..<6: try maker.make(juice, count: 1 + Int(random.next() % 2))
            case 6, 7: try maker.add(1 + Int(random.next() % 20), of: fruit)
            case 8: try maker.set([fruit: Int(random.next() % 40)])
            default: try longMaker.make(juice)
            }
            // A long event early on as well, so overflow chains sit between ordinary pages.
            if step == 3 { try longMaker.add(5, of: .kiwi) }
        }
        let last = try store.lastSequence()
        let events = try store.events(after: 0, limit: .max)
        // Cursors: one at the end (a cut tail leaves it past the recovered journal),
        // one in the middle, one with a delivery time.
        try store.setCursor(named: "hook", to: last)
        try store.setCursor(named: "mail", to: last / 2)
        try store.setCursor(named: "feed", to: max(1, last - 5), deliveredAt: 1_750_000_000.25)
        // Dead letters over several pages, two with an error longer than a page.
        for index in 0..<60 {
            let event = events[Int(random.next() % UInt64(events.count))]
            let error =
                index % 30 == 7
                ? String(repeating: "connection reset by peer; ", count: 220)
                : "HTTP \(500 + index % 4): try \(index)"
            try store.recordDeadLetter(
                DeadLetter(
                    subscriber: index % 3 == 0 ? "mail" : "hook", sequence: event.sequence, eventID: event.id, attempts: 1 + index % 9,
                    lastError: error, recordedAt: 1_750_000_000 + Double(index) / 8))
        }
        try store.setRetryState(
            DeliveryRetryState(sequence: last - 1, attempts: 3, nextAttemptAt: 1_750_000_100.5, lastError: "timed out"), for: "hook")
        try store.setRetryState(
            DeliveryRetryState(
                sequence: last / 2 + 1, attempts: 7, nextAttemptAt: 1_750_000_200,
                lastError: String(repeating: "503 Service Unavailable; ", count: 200)), for: "mail")
        try store.setRetryState(
            DeliveryRetryState(sequence: 2, attempts: 1, nextAttemptAt: 1_750_000_300, lastError: "410 Gone", disabled: true), for: "gone")
    }
}

/// What the intact store holds, as SQLite stores it (every column's storage class
/// and bytes): the oracle every recovered row is compared with.
struct StoreTruth: Sendable {
    /// Journal rows (sequence, id, time, type, change_id, event) by sequence.
    let journal: [Int64: [RawDatabase.Value]]
    /// The stock table: quantity by fruit id.
    let stock: [String: Int64]
    let cursors: Set<[RawDatabase.Value]>
    let deadLetters: Set<[RawDatabase.Value]>
    let retryStates: Set<[RawDatabase.Value]>
    /// Each `stockChanged` event's fruit and quantity after it, by sequence.
    let stockChanges: [Int64: (fruit: Fruit, to: Int)]
    /// The journal's leaf pages and the sequences each holds entirely on the page
    /// (no overflow): rows a page that is still there must give back.
    let journalLeafRows: [Int: [Int64]]

    static let journalColumns = "sequence, id, time, type, change_id, event"
    static let cursorColumns = "subscriber, sequence"
    static let deadLetterColumns = "subscriber, sequence, event_id, attempts, last_error, recorded_at"
    static let retryStateColumns = "subscriber, sequence, attempts, next_attempt_at, last_error, disabled"

    init(path: String) throws {
        let raw = try RawDatabase(path, readOnly: true)
        var journal: [Int64: [RawDatabase.Value]] = [:]
        for row in try raw.values("SELECT \(Self.journalColumns) FROM journal") {
            guard case .integer(let sequence) = row[0] else { continue }
            journal[sequence] = row
        }
        self.journal = journal
        var stock: [String: Int64] = [:]
        for row in try raw.values("SELECT fruit, quantity FROM stock") {
            if case .text(let fruit) = row[0], case .integer(let quantity) = row[1] { stock[String(decoding: fruit, as: UTF8.self)] = quantity }
        }
        self.stock = stock
        cursors = Set(try raw.values("SELECT \(Self.cursorColumns) FROM cursors"))
        deadLetters = Set(try raw.values("SELECT \(Self.deadLetterColumns) FROM dead_letters"))
        retryStates = Set(try raw.values("SELECT \(Self.retryStateColumns) FROM retry_states"))
        var changes: [Int64: (fruit: Fruit, to: Int)] = [:]
        for envelope in try SQLiteStore(path: path, options: .init(access: .readOnly, checkEvery: 0)).events(after: 0, limit: .max) {
            if case let .stockChanged(fruit, _, to, _) = envelope.event { changes[envelope.sequence] = (fruit, to) }
        }
        stockChanges = changes
        journalLeafRows = try Self.leafRows(path: path, raw: raw)
    }

    /// The rowids of each journal leaf's cells that have no overflow page, read from
    /// the page itself (a table b-tree leaf: cell pointers, then each cell's payload
    /// size and rowid varints).
    private static func leafRows(path: String, raw: RawDatabase) throws -> [Int: [Int64]] {
        guard let data = FileManager.default.contents(atPath: path) else { return [:] }
        let bytes = [UInt8](data)
        let pageSize = Int(try raw.value("PRAGMA page_size")) ?? 4096
        let maxLocal = pageSize - 35
        var rows: [Int: [Int64]] = [:]
        for row in try raw.rows("SELECT pageno FROM dbstat WHERE name = 'journal' AND pagetype = 'leaf'") {
            guard let page = Int(row[0]) else { continue }
            let start = (page - 1) * pageSize
            let header = start + (page == 1 ? 100 : 0)
            guard bytes[header] == 13 else { continue }
            let count = Int(bytes[header + 3]) << 8 | Int(bytes[header + 4])
            var sequences: [Int64] = []
            for cell in 0..<count {
                let pointer = Int(bytes[header + 8 + 2 * cell]) << 8 | Int(bytes[header + 9 + 2 * cell])
                var offset = start + pointer
                let payload = Varint.read(bytes, at: &offset)
                let rowid = Varint.read(bytes, at: &offset)
                if payload <= UInt64(maxLocal) { sequences.append(Int64(bitPattern: rowid)) }
            }
            rows[page] = sequences
        }
        return rows
    }
}

/// SQLite's variable-length integers (big-endian, 7 bits a byte, the ninth byte whole).
enum Varint {
    static func read(_ bytes: [UInt8], at offset: inout Int) -> UInt64 {
        var value: UInt64 = 0
        for index in 0..<9 {
            guard offset < bytes.count else { return value }
            let byte = bytes[offset]
            offset += 1
            if index == 8 { return value << 8 | UInt64(byte) }
            value = value << 7 | UInt64(byte & 0x7F)
            if byte < 0x80 { return value }
        }
        return value
    }
}
