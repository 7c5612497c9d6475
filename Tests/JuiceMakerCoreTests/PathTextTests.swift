import FoundationEssentials
import JuiceMakerCore
import JuiceTestSupport
import Testing

/// `PathText.lastComponent(of:)` names a program in messages (the command subscriber's
/// display name). Checked against FoundationEssentials' `URL.lastPathComponent`, which
/// it replaces, on every path that does not depend on the working directory.
@Suite(.tags(.unit)) struct PathTextTests {
    private static let pieces = ["a", "bin", "/", "//", "é", "한", ".x", "cat", " "]

    @Test func agreesWithURLLastPathComponentOnAbsolutePaths() {
        var generator = SeededGenerator(seed: 0x9a7e)
        for _ in 0..<2_000 {
            var path = "/"
            for _ in 0..<Int(generator.next() % 6) { path += Self.pieces[Int(generator.next() % UInt64(Self.pieces.count))] }
            // "." and ".." are resolved by URL, not by a lexical last component.
            guard !path.split(separator: "/").contains(where: { $0 == "." || $0 == ".." }) else { continue }
            #expect(PathText.lastComponent(of: path) == URL(fileURLWithPath: path).lastPathComponent, "\(path)")
        }
    }

    @Test func relativeAndEdgePaths() {
        #expect(PathText.lastComponent(of: "cat") == "cat")
        #expect(PathText.lastComponent(of: "dir/") == "dir")
        #expect(PathText.lastComponent(of: "a//b//") == "b")
        #expect(PathText.lastComponent(of: "/") == "/")
        #expect(PathText.lastComponent(of: "///") == "/")
        #expect(PathText.lastComponent(of: "") == "")
    }
}
