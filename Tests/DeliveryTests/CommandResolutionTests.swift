import Foundation
import JuiceTestSupport
import Testing

@testable import CommandPlugin

/// How the command subscriber finds its program (`access(X_OK)`, as a shell's search
/// does): a path with "/" as it is, otherwise the first executable match along PATH.
@Suite(.tags(.unit)) struct CommandResolutionTests {
    @Test func theFirstExecutableMatchAlongThePathIsChosen() throws {
        let directory = try TemporaryDirectory()
        for folder in ["one", "two", "three"] {
            try FileManager.default.createDirectory(atPath: directory.file(folder), withIntermediateDirectories: true)
        }
        // In "one" the name is there but cannot be run; in "two" it can; "three" is later.
        for (folder, mode) in [("one", 0o644), ("two", 0o755), ("three", 0o755)] {
            #expect(FileManager.default.createFile(atPath: directory.file("\(folder)/feed"), contents: Data("#!/bin/sh\n".utf8)))
            #expect(chmod(directory.file("\(folder)/feed"), mode_t(mode)) == 0)
        }
        let path = ["one", "two", "three"].map { directory.file($0) }.joined(separator: ":")
        #expect(CommandSubscriber.resolve("feed", in: "/", path: path) == directory.file("two/feed"))
        #expect(CommandSubscriber.resolve("absent", in: "/", path: path) == nil)
        // With a "/": relative to the working directory, and only if it can be run.
        #expect(CommandSubscriber.resolve("two/feed", in: directory.path, path: nil) == directory.path + "/two/feed")
        #expect(CommandSubscriber.resolve("one/feed", in: directory.path, path: nil) == nil)
        #expect(CommandSubscriber.resolve(directory.file("three/feed"), in: "/", path: "") == directory.file("three/feed"))
    }
}
