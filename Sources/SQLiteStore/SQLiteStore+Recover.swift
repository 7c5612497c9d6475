import CSQLite
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import JuiceMakerCore

/// What `SQLiteStore.recover(to:)` saved into the new store, and what it could not.
public struct RecoveryReport: Sendable, Equatable {
    /// Where a fruit's quantity in the new store came from.
    public enum StockSource: Sendable, Equatable {
        /// Its row in the old stock table.
        case stockTable
        /// Its row could not be read: the last `stockChanged` saved from the journal.
        case journal(sequence: Int64)
        /// Neither: 0.
        case missing
    }

    public struct StockEntry: Sendable, Equatable {
        public let fruit: Fruit
        public let quantity: Int
        public let source: StockSource
    }

    /// The application id and schema version a file's header says, when they do not
    /// name a JuiceMaker store of this version and its pages hold a store's tables.
    public struct HeaderIdentity: Sendable, Equatable {
        public let applicationID: UInt32
        public let schemaVersion: Int32

        init(_ header: [UInt8]) {
            func word(_ offset: Int) -> UInt32 {
                header.count >= offset + 4 ? header[offset..<offset + 4].reduce(0) { $0 << 8 | UInt32($1) } : 0
            }
            applicationID = word(68)
            schemaVersion = Int32(bitPattern: word(60))
        }
    }

    /// The file header's page size and reserved bytes, and those its pages agree on.
    public struct HeaderCorrection: Sendable, Equatable {
        public let headerPageSize: Int, headerReserved: Int
        public let pageSize: Int, reserved: Int
    }

    /// The new store.
    public let path: String
    /// Journal events saved.
    public let events: Int
    /// The last journal sequence the old store is known to have reached (its largest
    /// readable sequence, or a larger one a cursor or the report's fold had seen).
    public let lastSequence: Int64
    /// Journal rows between 1 and `lastSequence` not saved: on a damaged page, or
    /// read but not a sound event.
    public let skippedEvents: Int
    /// Which, as ranges (at most 20; `skippedEvents` counts them all).
    public let skippedSequences: [ClosedRange<Int64>]
    /// Every fruit's quantity in the new store, and where it came from.
    public let stock: [StockEntry]
    /// Rows of the delivery bookkeeping saved.
    public let cursors: Int, deadLetters: Int, retryStates: Int
    /// Tables of which some rows could not be read (besides the journal).
    public let incompleteTables: [String]
    /// The file's size and the size its header says, when it is shorter: what the
    /// missing pages held is lost, and may include events after `lastSequence`.
    public let cutShort: (size: Int64, expected: Int64)?
    /// Rows read but not saved because they are not sound (a column of the wrong type
    /// or out of range, text that is not UTF-8, an event that disagrees with its
    /// columns), by table; the journal's are among `skippedEvents` too.
    public let unreadableRows: [String: Int]
    /// For each durable subscriber, the events after its cursor that are gone: it will
    /// never be sent them. Kept in the new store until acknowledged.
    package let lostEvents: [LostEvents]
    /// When the header's page size (or reserved bytes) did not make the pages parse.
    public let headerCorrection: HeaderCorrection?
    /// When the header's application id or schema version was wrong (and the file was
    /// read as a store because its pages hold a store's tables).
    public internal(set) var headerIdentity: HeaderIdentity?
    /// Pages the page reader read (not counting the sample that checks the header):
    /// a small multiple of the file's pages, however it is damaged.
    package var pagesRead = 0

    /// Whether nothing at all was read: no event, no fruit's quantity, no delivery record.
    var isEmpty: Bool {
        events == 0 && stock.allSatisfy { $0.source == .missing } && cursors + deadLetters + retryStates == 0
    }

    public static func == (left: RecoveryReport, right: RecoveryReport) -> Bool {
        left.path == right.path && left.events == right.events && left.lastSequence == right.lastSequence
            && left.skippedEvents == right.skippedEvents && left.skippedSequences == right.skippedSequences
            && left.stock == right.stock && left.cursors == right.cursors && left.deadLetters == right.deadLetters
            && left.retryStates == right.retryStates && left.incompleteTables == right.incompleteTables
            && left.cutShort?.size == right.cutShort?.size && left.cutShort?.expected == right.cutShort?.expected
            && left.unreadableRows == right.unreadableRows && left.lostEvents == right.lostEvents
            && left.headerCorrection == right.headerCorrection && left.headerIdentity == right.headerIdentity
    }
}

extension SQLiteStore {
    /// Saves every readable row of this store into a new store at `target` (see
    /// `recover(from:to:)`). The store itself is only read.
    public func recover(to target: String) throws(StoreError) -> RecoveryReport {
        try Self.recover(from: path, to: target, mark: mark, vfs: vfs)
    }

    /// Saves every readable row of the store at `source`, however damaged or cut
    /// short, into a new store at `target` (created 0600 through the normal creation
    /// path; an existing file is refused with `targetExists`), reading `source` only:
    /// - the journal: SQLite's scan in sequence order and, where that meets damage or
    ///   the file is cut short, every table leaf page of the file read directly
    ///   (`PageFile`), so a damaged page, root and interior pages included, costs only
    ///   its own rows; every row saved is a sound event (it decodes, and its sequence
    ///   and id agree with its columns);
    /// - the stock: each fruit's row, or the last `stockChanged` saved for it;
    /// - delivery cursors, dead letters and retry states, as far as readable;
    /// - not the report's projection, which the new store folds again from the journal.
    /// An empty file is refused with `emptyFile`, a file of which nothing at all can
    /// be read with `nothingReadable`. Damage met is marked beside `source`. On
    /// failure the partial new file is removed.
    public static func recover(from source: String, to target: String) throws(StoreError) -> RecoveryReport {
        try recover(from: source, to: target, vfs: nil)
    }

    /// `recover(from:to:)` with every connection through the VFS registered as `vfs`
    /// (`Options.vfs`).
    package static func recover(from source: String, to target: String, vfs: String?) throws(StoreError) -> RecoveryReport {
        let mark = DamageMark(store: source)
        mark.opened(FileIdentity(of: source))
        return try recover(from: source, to: target, mark: mark, vfs: vfs)
    }

    private static func recover(from source: String, to target: String, mark: DamageMark, vfs: String?) throws(StoreError) -> RecoveryReport {
        var cutShort: (size: Int64, expected: Int64)?
        // A header SQLite does not recognise (its first page damaged) may still sit
        // before intact pages; refused as it was only when they hold nothing either.
        var unrecognised: StoreError?
        // The header's identity, when it is wrong but the pages hold a store's tables.
        var identity: RecoveryReport.HeaderIdentity?
        do throws(StoreError) {
            switch try StoreFile.inspect(source, latestVersion: Schema.latestVersion, allowReadOnly: true) {
            case .create: throw StoreFile.noStore(at: source)
            case .open, .openReadOnly: break
            }
        } catch {
            // A file cut short is damaged like any other: read what is there.
            switch error.reason {
            case let .cutShort(size, expected): cutShort = (size, expected)
            case .notADatabase: unrecognised = error
            case .foreignDatabase, .newerSchema:
                // Another application's database, or a newer juice's, is refused; a
                // damaged application id or version over a store's own tables is not.
                let newer = if case .newerSchema = error.reason { true } else { false }
                guard let pages = PageFile(path: source), pages.holdsStoreTables(known: Schema.tableNames, onlyKnown: newer) else {
                    throw error
                }
                let header = try StoreFile.readHeader(source, length: 100) ?? []
                identity = RecoveryReport.HeaderIdentity(header)
                do throws(StoreError) {
                    try StoreFile.check(header, size: Int64(pages.size), path: source, latestVersion: Schema.latestVersion, identity: false)
                } catch {
                    guard case let .cutShort(size, expected) = error.reason else { throw error }
                    cutShort = (size, expected)
                }
            default: throw error
            }
        }
        var reader: Connection?
        do throws(StoreError) {
            // SQLite reads nothing of a file whose header it does not recognise.
            if unrecognised == nil { reader = try openForRecovery(source, mark: mark, vfs: vfs) }
        } catch  where error.kind == .corrupt || error.kind == .io {
            // Not even the schema reads through SQLite (a damaged schema page, a header
            // field it refuses such as the schema format): the pages are all there is.
            reader = nil
        }
        let partial = try StoreFile.createPartial(for: target, store: source)
        var options = Options(createsDirectories: false, checkEvery: 0)
        options.vfs = vfs
        do throws(StoreError) {
            // The schema and an empty stock, exactly as any new store gets them.
            _ = try SQLiteStore(path: partial, initialStock: Stock(repeating: 0), options: options)
            let writer = try Connection(path: partial, vfs: vfs)
            let pages = PageFile(path: source)
            // SQLite reads the file with its header's page size: where that is wrong,
            // whatever it returns is read from the wrong places, and only the pages tell.
            // So does the size the header's page count implies: a whole last page is all
            // the file says of its own length then.
            if let pages, pages.wrongHeader != nil {
                reader = nil
                let size = Int64(pages.size)
                let whole = Int64(pages.pageCount * pages.pageSize)
                cutShort = size < whole ? (size, whole) : nil
            }
            var recovery = Recovery(source: reader, pages: pages, cutShort: cutShort, target: writer, sourcePath: source)
            try recovery.run()
            writer.close()
            var report = recovery.report(path: target)
            report.headerIdentity = identity
            guard !report.isEmpty else { throw unrecognised ?? StoreError(.nothingReadable, path: source) }
            // Opening it once checks the new file (its close record does not match
            // what was just written) and leaves a clean close record.
            _ = try SQLiteStore(path: partial, options: options).lastSequence()
            try StoreFile.publish(partial, as: target, store: source)
            return report
        } catch {
            StoreFile.removeNew(partial)
            throw error
        }
    }

    /// A read-only connection to a store to recover that has read its schema table.
    /// `writable_schema` makes SQLite read a file cut short as far as it goes (it
    /// otherwise refuses a file shorter than its header says); `query_only` keeps
    /// the connection from writing anything.
    private static func openForRecovery(_ path: String, mark: DamageMark, vfs: String?) throws(StoreError) -> Connection {
        var mode = Connection.Mode.readOnly
        while true {
            let connection = try Connection(path: path, mode: mode, vfs: vfs)
            connection.onDamage = { error in mark.record(error) }
            do throws(StoreError) {
                try connection.execute("PRAGMA query_only = ON; PRAGMA writable_schema = ON")
                _ = try connection.integer("SELECT count(*) FROM sqlite_schema")
                return connection
            } catch  where error.kind == .inaccessible && mode == .readOnly && !StoreFile.hasWriteAheadLog(path) {
                mode = .immutable
            }
        }
    }
}
