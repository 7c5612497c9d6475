import FoundationEssentials
import JuicePrimitives
import JuiceTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The file gate (`FileGate`) every file juice opens passes through: nothing waits to
/// open, only regular files are read, outputs go to regular files and character
/// devices only, and never onto the store's files by any spelling.
@Suite(.tags(.unit)) struct FileGateTests {
    /// A directory with a store file (and its `-wal`), a FIFO nobody opens, a directory,
    /// a symbolic link and a hard link to the store, and a regular file.
    struct Place {
        let directory: TemporaryDirectory
        var store: String { directory.file("juice.db") }

        init() throws {
            directory = try TemporaryDirectory()
            try Data("SQLite format 3\0".utf8).write(to: URL(fileURLWithPath: directory.file("juice.db")))
            try Data("wal".utf8).write(to: URL(fileURLWithPath: directory.file("juice.db-wal")))
            #expect(mkfifo(directory.file("fifo"), 0o600) == 0)
            #expect(mkdir(directory.file("folder"), 0o700) == 0)
            #expect(symlink("juice.db", directory.file("link.db")) == 0)
            #expect(link(directory.file("juice.db"), directory.file("hard.db")) == 0)
            try Data("text".utf8).write(to: URL(fileURLWithPath: directory.file("plain.txt")))
        }
    }

    @Test func onlyRegularFilesAreReadAndNothingWaits() throws {
        let place = try Place()
        #expect(try FileGate.contents(of: place.directory.file("plain.txt")) == Array("text".utf8))
        #expect(throws: FileRefusal.notRegular(.fifo)) { try FileGate.contents(of: place.directory.file("fifo")) }
        #expect(throws: FileRefusal.notRegular(.directory)) { try FileGate.contents(of: place.directory.file("folder")) }
        #expect(throws: FileRefusal.notRegular(.characterDevice)) { try FileGate.contents(of: "/dev/zero") }
        #expect(throws: FileRefusal.system(ENOENT)) { try FileGate.contents(of: place.directory.file("missing")) }
        #expect(throws: FileRefusal.tooLarge(limit: 2)) { try FileGate.contents(of: place.directory.file("plain.txt"), limit: 2) }
        #expect(throws: FileRefusal.notRegular(.fifo)) { try FileGate.checkReadable(place.directory.file("fifo")) }
        #expect(throws: FileRefusal.notRegular(.fifo)) { try FileGate.openForUpdating(place.directory.file("fifo")) }
    }

    /// The store, its sidecars, and every other spelling of them: refused as output,
    /// before anything is opened, whether the file is there or not yet.
    @Test func noOutputLandsOnTheStore() throws {
        let place = try Place()
        let gate = FileGate(guarding: place.store)
        let spellings = [
            "juice.db", "./juice.db", "folder/../juice.db", "link.db", "hard.db", "juice.db-wal", "juice.db-shm", "juice.db-journal",
        ]
        for spelling in spellings {
            let path = place.directory.file(spelling)
            #expect(throws: FileRefusal.self, "\(spelling)") { try gate.checkOutput(path) }
            #expect(throws: FileRefusal.self, "\(spelling)") { try gate.openForAppending(path) }
            if case .storeFile? = Self.refusal({ () throws(FileRefusal) in try gate.checkOutput(path) }) {
            } else {
                Issue.record("\(spelling): not refused as the store's")
            }
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: place.store)) == Data("SQLite format 3\0".utf8), "the store is as it was")
        #expect(!FileManager.default.fileExists(atPath: place.directory.file("juice.db-shm")), "nothing was created")
        // Another file beside it is fine; so is a gate that guards no store.
        let log = try gate.openForAppending(place.directory.file("juice.log"))
        close(log)
        try FileGate(guarding: nil).checkOutput(place.store)
    }

    /// Output goes to regular files, character devices and FIFOs a process reads; a FIFO
    /// nobody reads is refused at once, never waited on.
    @Test func outputsGoToRegularFilesDevicesAndReadFIFOsOnly() throws {
        let place = try Place()
        let gate = FileGate(guarding: place.store)
        let folder = place.directory.file("folder")
        #expect(throws: FileRefusal.notRegular(.directory)) { try gate.checkOutput(folder) }
        #expect(throws: FileRefusal.notRegular(.directory)) { try gate.openForAppending(folder) }
        let fifo = place.directory.file("fifo")
        try gate.checkOutput(fifo)
        #expect(throws: FileRefusal.noReader) { try gate.openForAppending(fifo) }
        let reader = open(fifo, O_RDONLY | O_NONBLOCK)
        #expect(reader >= 0)
        let writer = try gate.openForAppending(fifo)
        #expect(writer >= 0)
        close(writer)
        close(reader)
        try gate.checkOutput("/dev/null")
        close(try gate.openForAppending("/dev/null"))
        close(try gate.openForAppending(place.directory.file("plain.txt")))
    }

    private static func refusal(_ body: () throws(FileRefusal) -> Void) -> FileRefusal? {
        do throws(FileRefusal) {
            try body()
            return nil
        } catch {
            return error
        }
    }
}
