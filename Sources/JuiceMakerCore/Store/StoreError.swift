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
/// The ports' own error, in the ports' words: a store file, its database engine, the
/// working files it keeps beside the file; never one adapter's terms. The library says
/// what went wrong, in English (`description`, for logs and tests) and Korean
/// (`korean`), both here; a front end adds how to fix it in its own terms (the CLI
/// names `--store`). Neither text names a front end's options.
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
        /// The directory is not writable, so the store cannot keep its working files there.
        case directoryNotWritable(String)
        /// The file system is mounted read-only.
        case fileSystemReadOnly
        /// The caller asked for read-only access.
        case requested
    }

    /// What the store was doing when its engine failed: opening the file, or preparing
    /// or running one of its statements (in the engine's own text).
    public enum Operation: Sendable, Equatable {
        case opening
        case preparing(String)
        case running(String)
    }

    /// Why the store failed, with the values a message needs.
    public enum Reason: Sendable, Equatable {
        // The file is not (or no longer) a JuiceMaker store.
        /// The file is not a database (`size` bytes of something else).
        case notADatabase(size: Int64)
        /// The file is shorter than its header says.
        case cutShort(size: Int64, expected: Int64)
        /// The file is empty: no store was ever written to it (opening it for use
        /// makes it a new store).
        case emptyFile
        /// Recovery could read nothing of the file: no event, no stock row, no
        /// delivery record.
        case nothingReadable
        /// A database of another application (`applicationID` when read from the
        /// header).
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
        /// A stored value the store never writes (`value`, as read) in `column` of the
        /// row of `table` that `row` names: a time out of range, a count below zero, a
        /// number where text belongs. Damage, read as such, never converted.
        case impossibleValue(table: String, row: String, column: String, value: String)
        /// The engine found the file damaged or not a database.
        case damaged(Operation, engineMessage: String)
        /// Damage was seen earlier and marked beside the file (`marker`, found at
        /// `foundAt`, RFC 3339, because of `detail`): writes are refused until the
        /// store is recovered to a new file that is moved into place.
        case markedDamaged(marker: String, foundAt: String, detail: String)
        /// Moving the schema from version `from` to `to` failed (`problem`: the engine's
        /// words or what is missing); the migration was rolled back.
        case migrationFailed(from: Int32, to: Int32, problem: String)

        // The file or its directory cannot be used.
        /// The path names a directory, a FIFO or another file that is not regular.
        case notARegularFile(FileKind)
        /// The file is not readable and writable by this user.
        case fileNotReadableWritable
        /// The engine opened the file read-only.
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
        /// (`fileExists` false) or cannot keep its working files there.
        case directoryNotWritable(directory: String, fileExists: Bool)
        /// A missing directory above the store could not be created.
        case cannotCreateDirectory(directory: String, SystemFailure)
        /// The file could not be read or opened.
        case cannotOpen(SystemFailure)
        /// The engine was refused access to the file.
        case permissionDenied(Operation, engineMessage: String)
        /// The delivery lease file could not be opened or locked.
        case leaseUnavailable(file: String, SystemFailure)

        // Running.
        /// Another process kept the store locked for more than `seconds` seconds.
        case busy(Operation, seconds: Int, engineMessage: String)
        /// The disk is full.
        case diskFull(Operation)
        /// Any other failure of the engine: its result code and its own message.
        case engineFailure(Operation, code: Int32, engineMessage: String)
        /// The engine could not allocate a connection.
        case connectionUnavailable(code: Int32)
        /// The engine would not switch to the logging mode that lets readers and a
        /// writer share the file (`mode`: the one it kept; a network file system?).
        case sharedLoggingRefused(mode: String)

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
    package static func current(_ code: Int32) -> SystemFailure {
        SystemFailure(code: code, message: String(cString: strerror(code)))
    }

    public var description: String { message }
}
