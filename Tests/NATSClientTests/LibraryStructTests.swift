import Foundation
import Testing

/// The structs libnats allocates (`jsStreamInfo.Config`, `jsConsumerInfo.Config`) are
/// the library's size, smaller than the header's declaration, which has room after
/// its fields for a newer library's (Sources/CNATSLoader): the client reads them field
/// by field through the pointer and never copies one as a value, which would read past
/// the library's allocation.
@Suite(.tags(.unit)) struct LibraryStructTests {
    static let client = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources/NATSClient")

    @Test func noLibraryConfigIsCopiedAsAValue() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.client.path).filter { $0.hasSuffix(".swift") }
        #expect(files.count > 5)
        // `….Config.pointee` or `….Config?.pointee` not followed by a field.
        let copy = try Regex(#"Config[?!]?\.pointee(?![.\w])"#)
        let namedCopy = try Regex(#"let \w+ = \w+\.pointee\.Config\??\.pointee(?![.\w])"#)
        for file in files {
            let text = try String(contentsOf: Self.client.appendingPathComponent(file), encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
            where !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") {
                #expect(line.firstMatch(of: copy) == nil && line.firstMatch(of: namedCopy) == nil, "\(file):\(number + 1): \(line)")
            }
        }
    }
}
