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

/// A store could not do what was asked: which file, and why, as a `Reason`.
///
/// The library says what went wrong; a front end renders `reason` in the person's
/// language and adds how to fix it in its own terms (the CLI names `--store`).
/// `description` is the English text for logs and tests; it names no front end's
/// options.
public struct StoreError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable, Equatable {
        /// The file or its directory cannot be opened, created or written.
        case inaccessible
        /// The file is not a database, or is damaged.
        case corrupt
        /// The file is a database of another application.
        case foreign
        /// The file was written by a newer version of JuiceMaker.
        case newerVersion
        /// Another process held the store for longer than the busy timeout.
        case busy
        /// Any other input/output failure.
        case io
    }

    /// Why a store is read-only.
    public enum ReadOnlyCause: Sendable, Equatable {
        /// The file is not writable by this user (or is immutable).
        case fileNotWritable
        /// The directory is not writable, so SQLite cannot keep its -wal and -shm files.
        case directoryNotWritable(String)
        /// The file system is mounted read-only.
        case fileSystemReadOnly
        /// The caller asked for read-only access.
        case requested
    }

    /// What the store was doing when SQLite failed.
    public enum Operation: Sendable, Equatable {
        case opening
        case preparing(sql: String)
        case running(sql: String)
    }

    /// Why the store failed, with the values a message needs.
    public enum Reason: Sendable, Equatable {
        // The file is not (or no longer) a JuiceMaker store.
        /// The file is not a SQLite database (`size` bytes of something else).
        case notADatabase(size: Int64)
        /// The file is shorter than its header says.
        case cutShort(size: Int64, expected: Int64)
        /// The file is empty: no store was ever written to it (opening it for use
        /// makes it a new store).
        case emptyFile
        /// Recovery could read nothing of the file: no event, no stock row, no
        /// delivery record.
        case nothingReadable
        /// A SQLite database of another application (`applicationID` when read
        /// from the header).
        case foreignDatabase(applicationID: UInt32?)
        /// A JuiceMaker schema newer than this build supports.
        case newerSchema(found: Int32, supported: Int32)
        /// A JuiceMaker store without a schema version.
        case noSchemaVersion
        /// The stock table has `found` of `expected` fruit rows.
        case stockRowsMissing(found: Int, expected: Int)
        /// A journal row that does not decode as an event; `problem` is the decoder's.
        case journalRowNotAnEvent(sequence: Int64, problem: String)
        /// A dead letter of `subscriber` without a valid event id.
        case deadLetterWithoutEventID(subscriber: String)
        /// SQLite found the file damaged or not a database.
        case damaged(Operation, engineMessage: String)
        /// Damage was seen earlier and marked beside the file (`marker`, found at
        /// `foundAt`, RFC 3339, because of `detail`): writes are refused until the
        /// store is recovered to a new file that is moved into place.
        case markedDamaged(marker: String, foundAt: String, detail: String)
        /// Moving the schema from version `from` to `to` failed (`problem`: SQLite's
        /// words or what is missing); the migration was rolled back.
        case migrationFailed(from: Int32, to: Int32, problem: String)

        // The file or its directory cannot be used.
        /// The path names a directory, a FIFO or another file that is not regular.
        case notARegularFile(FileKind)
        /// The file is not readable and writable by this user.
        case fileNotReadableWritable
        /// SQLite opened the file read-only.
        case fileReadOnly
        /// The store was opened read-only (`cause`): queries work, changes are refused.
        case storeReadOnly(ReadOnlyCause)
        /// An older schema (`found`) must be moved to `supported` before use, which
        /// needs write access the store was opened without.
        case migrationNeedsWriting(found: Int32, supported: Int32)
        /// The store's directory does not exist (`isFile`: a file has its name), and
        /// directories are created only for the default location.
        case directoryMissing(directory: String, isFile: Bool)
        /// A backup or recovery target that already exists; it was not touched.
        case targetExists(String)
        /// A backup or recovery target that cannot be written (its directory missing or
        /// not writable); the store was not touched.
        case targetUnwritable(String, SystemFailure)
        /// The directory cannot be written: the store cannot be created there
        /// (`fileExists` false) or SQLite cannot keep its -wal and -shm files there.
        case directoryNotWritable(directory: String, fileExists: Bool)
        /// A missing directory above the store could not be created.
        case cannotCreateDirectory(directory: String, SystemFailure)
        /// The file could not be read or opened.
        case cannotOpen(SystemFailure)
        /// SQLite was refused access to the file.
        case permissionDenied(Operation, engineMessage: String)
        /// The delivery lease file could not be opened or locked.
        case leaseUnavailable(file: String, SystemFailure)

        // Running.
        /// Another process kept the store locked for more than `seconds` seconds.
        case busy(Operation, seconds: Int, engineMessage: String)
        /// The disk is full.
        case diskFull(Operation)
        /// Any other SQLite failure: its result code and its own message.
        case engineFailure(Operation, code: Int32, engineMessage: String)
        /// SQLite could not allocate a connection.
        case connectionUnavailable(code: Int32)
        /// SQLite would not switch to write-ahead logging (a network file system?).
        case writeAheadLogRefused(journalMode: String)

        // A bug in the caller; nothing was written.
        /// An initial stock below zero.
        case negativeInitialStock(Fruit)
        /// A change that would leave a fruit below zero.
        case negativeQuantity(Fruit)
        /// An event whose sequence does not continue the journal.
        case sequenceRefused(found: Int64, expected: Int64)
        /// An event whose id is not after the previous one.
        case idRefused(EventID, previous: EventID)
        /// The journal has given its last sequence (`EventEnvelope.greatestSequence`): a
        /// store that reached it by damage or by hand takes no more events.
        case sequencesExhausted(last: Int64)
        /// A failure that is not a store's (its own text).
        case unexpected(String)
    }

    public let kind: Kind
    /// The store's location (`:memory:` for the in-memory store).
    public let path: String
    /// Why, in values; a front end renders it.
    public let reason: Reason

    public init(_ reason: Reason, path: String) {
        self.kind = reason.kind
        self.path = path
        self.reason = reason
    }

    /// What went wrong, in English, without how to fix it.
    public var detail: String { reason.description }

    public var description: String { "store \(path): \(detail)" }
}

/// A failed system call: `errno` and the system's own (English) text for it.
public struct SystemFailure: Sendable, Equatable, CustomStringConvertible {
    public let code: Int32
    public let message: String

    public init(code: Int32, message: String) {
        self.code = code
        self.message = message
    }

    /// The failure `errno` names now.
    public static func current(_ code: Int32) -> SystemFailure {
        SystemFailure(code: code, message: String(cString: strerror(code)))
    }

    public var description: String { message }
}

extension StoreError.Operation: CustomStringConvertible {
    public var description: String {
        switch self {
        case .opening: "opening it"
        case let .preparing(sql): "preparing \(sql)"
        case let .running(sql): "running \(sql)"
        }
    }
}

extension StoreError.ReadOnlyCause: CustomStringConvertible {
    public var description: String {
        switch self {
        case .fileNotWritable: "the file is not writable by you"
        case let .directoryNotWritable(directory):
            "the directory \(directory) is not writable, and SQLite keeps its -wal and -shm files beside the store"
        case .fileSystemReadOnly: "its file system is mounted read-only"
        case .requested: "it was opened for reading only"
        }
    }
}

extension StoreError.Reason: CustomStringConvertible {
    var kind: StoreError.Kind {
        switch self {
        case .notADatabase, .cutShort, .emptyFile, .nothingReadable, .noSchemaVersion, .stockRowsMissing, .journalRowNotAnEvent,
            .deadLetterWithoutEventID, .damaged, .markedDamaged, .migrationFailed:
            .corrupt
        case .foreignDatabase: .foreign
        case .newerSchema: .newerVersion
        case .notARegularFile, .fileNotReadableWritable, .fileReadOnly, .directoryNotWritable,
            .cannotCreateDirectory, .cannotOpen, .permissionDenied, .connectionUnavailable, .storeReadOnly,
            .migrationNeedsWriting, .directoryMissing, .targetExists, .targetUnwritable:
            .inaccessible
        case .busy: .busy
        case .leaseUnavailable, .diskFull, .engineFailure, .writeAheadLogRefused, .negativeInitialStock,
            .negativeQuantity, .sequenceRefused, .idRefused, .sequencesExhausted, .unexpected:
            .io
        }
    }

    /// English, one clause, no front end's options.
    public var description: String {
        let untouched = "it was left untouched"
        switch self {
        case let .notADatabase(size):
            return "the file is not a SQLite database (\(size) bytes of something else, or a database cut short); \(untouched)"
        case let .cutShort(size, expected):
            return "the file is cut short: \(size) bytes where its header says \(expected); \(untouched)"
        case .emptyFile:
            return "the file is empty (0 bytes): no store has been written to it yet"
        case .nothingReadable:
            return "nothing in the file could be read: no event, no stock row, no delivery record"
        case let .foreignDatabase(id):
            let shown = id.map { " (application_id 0x\(String($0, radix: 16)))" } ?? ""
            return "the file is a SQLite database of another application\(shown), not a JuiceMaker store; \(untouched)"
        case let .newerSchema(found, supported):
            return "the store was written by a newer JuiceMaker (schema version \(found); this one knows up to \(supported)); \(untouched)"
        case .noSchemaVersion:
            return "the store has no schema version"
        case let .stockRowsMissing(found, expected):
            return "the stock table lacks some fruits (\(found) of \(expected) rows)"
        case let .journalRowNotAnEvent(sequence, problem):
            return "journal entry \(sequence) is not a JuiceMaker event (\(problem))"
        case let .deadLetterWithoutEventID(subscriber):
            return "a dead letter of \(subscriber) has no valid event id"
        case let .damaged(operation, message):
            return "the file is damaged or not a database (\(message)) while \(operation)"
        case let .markedDamaged(marker, foundAt, detail):
            return "the store was found damaged at \(foundAt) (\(detail)), as \(marker) records; changes are refused"
        case let .migrationFailed(from, to, problem):
            return "the store's schema cannot be moved from version \(from) to \(to) (\(problem)); it was left as it was"
        case .notARegularFile(let kind):
            return "this is not a regular file (\(kind.english))"
        case .fileNotReadableWritable:
            return "the file is not readable and writable by you"
        case .fileReadOnly:
            return "the file is read-only"
        case let .storeReadOnly(cause):
            return "the store is read-only: \(cause)"
        case let .migrationNeedsWriting(found, supported):
            return
                "the store has schema version \(found), which must be moved to \(supported) before use, and it is opened read-only; it was left untouched"
        case let .directoryMissing(directory, isFile):
            return isFile
                ? "the directory \(directory) does not exist (a file has that name)"
                : "the directory \(directory) does not exist"
        case let .targetExists(target):
            return "\(target) already exists; it was left untouched"
        case let .targetUnwritable(target, failure):
            return "cannot write the copy \(target) (\(failure)); the store was left untouched"
        case let .directoryNotWritable(directory, fileExists):
            return fileExists
                ? "the directory \(directory) is not writable, and SQLite keeps its -wal and -shm files beside the store"
                : "the directory \(directory) is not writable, so the store cannot be created there"
        case let .cannotCreateDirectory(directory, failure):
            return "cannot create the directory \(directory) (\(failure))"
        case let .cannotOpen(failure):
            return "cannot open the file (\(failure))"
        case let .permissionDenied(operation, message):
            return "cannot open or write the file (\(message)) while \(operation)"
        case let .leaseUnavailable(file, failure):
            return "cannot take the delivery lease \(file) (\(failure))"
        case let .busy(operation, seconds, message):
            return "another process kept the store locked for more than \(seconds) s while \(operation) (\(message))"
        case let .diskFull(operation):
            return "the disk is full while \(operation)"
        case let .engineFailure(operation, code, message):
            return "SQLite failed while \(operation): \(message) (code \(code))"
        case let .connectionUnavailable(code):
            return "SQLite could not allocate a connection (code \(code))"
        case let .writeAheadLogRefused(mode):
            return "SQLite refused write-ahead logging (journal mode \(mode))"
        case let .negativeInitialStock(fruit):
            return "the initial stock of \(fruit.id) is negative"
        case let .negativeQuantity(fruit):
            return "refused a negative quantity of \(fruit.id) (a bug in the caller)"
        case let .sequenceRefused(found, expected):
            return "refused event sequence \(found), expected \(expected) (a bug in the caller)"
        case let .idRefused(id, previous):
            return "refused event id \(id), not after \(previous) (a bug in the caller)"
        case let .sequencesExhausted(last):
            return
                "the journal has reached sequence \(last), and no event may take a sequence past \(EventEnvelope.greatestSequence); nothing was written"
        case let .unexpected(text):
            return text
        }
    }
}
