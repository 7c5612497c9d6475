import FoundationEssentials
import JuiceMakerPluginKit
import JuicePrimitives
import JuiceTestSupport
import Testing

@testable import JuiceCLI

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// `AtomicFile.write` (the SVG of `juice report --svg`): the target holds the old bytes
/// or the new, and a failure leaves no temporary file beside it.
@Suite(.tags(.unit)) struct AtomicFileTests {
    private func names(in directory: TemporaryDirectory) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
    }

    @Test func writesAndReplacesWithNothingLeftBeside() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("report.svg")
        var generator = SeededGenerator(seed: 0xa70f)
        for round in 0..<20 {
            // Empty, small and larger than a pipe buffer, so a short write would show.
            let count = [0, 1, 70_000][round % 3] + Int(generator.next() % 100)
            let bytes = (0..<count).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            try AtomicFile.write(bytes, to: path, gate: FileGate(guarding: nil))
            #expect(FileManager.default.contents(atPath: path).map(Array.init) == bytes)
            #expect(try names(in: directory) == ["report.svg"])
        }
    }

    /// Mode 0666 less the umask, read from /proc (setting it would change it for the
    /// tests running beside this one).
    @Test func aNewFileTakesTheUmask() throws {
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("Umask:") })
        let mask = try #require(mode_t(line.dropFirst("Umask:".count).trimmingCharacters(in: .whitespaces), radix: 8))
        let directory = try TemporaryDirectory()
        let path = directory.file("new.svg")
        try AtomicFile.write(Array("x".utf8), to: path, gate: FileGate(guarding: nil))
        var file = stat()
        #expect(stat(path, &file) == 0)
        #expect(file.st_mode & 0o777 == 0o666 & ~mask)
    }

    /// A link to a private file (the metrics textfile, an SVG): the link stays a link,
    /// and the file it points to keeps its mode and owner when replaced (it became
    /// 0666 less the umask: a 0600 file turned readable by everyone).
    @Test func aLinkedFileKeepsItsModeAndOwnerAndTheLinkStays() throws {
        let directory = try TemporaryDirectory()
        let target = directory.file("private.prom")
        let link = directory.file("juice-maker.prom")
        try AtomicFile.write(Array("old".utf8), to: target, gate: FileGate(guarding: nil))
        #expect(chmod(target, 0o600) == 0)
        #expect(chown(target, 0, 4321) == 0 || getuid() != 0)
        var before = stat()
        #expect(stat(target, &before) == 0)
        #expect(symlink("private.prom", link) == 0)
        try AtomicFile.write(Array("new".utf8), to: link, gate: FileGate(guarding: nil))
        var linked = stat()
        #expect(lstat(link, &linked) == 0 && linked.st_mode & S_IFMT == S_IFLNK, "the link stays a link")
        #expect(FileManager.default.contents(atPath: target).map(Array.init) == Array("new".utf8))
        var after = stat()
        #expect(stat(target, &after) == 0)
        #expect(after.st_mode & 0o7777 == 0o600)
        #expect(after.st_uid == before.st_uid && after.st_gid == before.st_gid)
        #expect(try names(in: directory) == ["juice-maker.prom", "private.prom"])
    }

    @Test func aFailureNamesTheErrorAndChangesNothing() throws {
        let directory = try TemporaryDirectory()
        let missing = directory.file("missing/dir/report.svg")
        #expect(throws: AtomicFile.Failure(code: ENOENT)) { try AtomicFile.write([1, 2, 3], to: missing, gate: FileGate(guarding: nil)) }
        #expect((try? AtomicFile.write([1], to: missing, gate: FileGate(guarding: nil))) == nil)
        #expect(AtomicFile.Failure(code: ENOENT).reason == "No such file or directory")
        // A directory in the way: the rename fails, the directory and its content stay,
        // and the temporary file is gone.
        let taken = directory.file("taken")
        #expect(mkdir(taken, 0o700) == 0)
        try AtomicFile.write([7], to: taken + "/inside", gate: FileGate(guarding: nil))
        #expect(throws: AtomicFile.Failure.self) { try AtomicFile.write([1, 2, 3], to: taken, gate: FileGate(guarding: nil)) }
        #expect(try names(in: directory) == ["taken"])
        #expect(FileManager.default.contents(atPath: taken + "/inside").map(Array.init) == [7])
    }
}
