import Foundation
import JuiceTestSupport
import Testing

/// `juice` uses nothing of FoundationEssentials but `Date`. Any use of its `URL`,
/// `Data`, `FileManager`, `JSONDecoder` or base64 links about 200 KB of its pointer
/// tables into the release binary, which the loader relocates at every start (README,
/// Measured). The debug `juice` loads FoundationEssentials as a shared library, so
/// what it imports from it is what every module linked into `juice` uses.
@Suite(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/nm"), "binutils' nm is not installed"))
struct FoundationUseTests {
    @Test func juiceImportsOnlyDateFromFoundationEssentials() throws {
        let nm = Process()
        nm.executableURL = URL(fileURLWithPath: "/usr/bin/nm")
        nm.arguments = ["--dynamic", "--undefined-only", "--format=just-symbols", juiceExecutable]
        let output = Pipe()
        nm.standardOutput = output
        try nm.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        nm.waitUntilExit()
        #expect(nm.terminationStatus == 0)
        let symbols = text.split(separator: "\n")
        // The check itself works: the binary imports Date from it.
        #expect(symbols.contains { $0.hasPrefix("$s20FoundationEssentials4DateV") })
        let others = symbols.filter {
            ($0.contains("20FoundationEssentials") && !$0.hasPrefix("$s20FoundationEssentials4DateV")) || $0.hasPrefix("$s10Foundation")
        }
        #expect(others.isEmpty, "juice uses more of Foundation than Date: \(others.prefix(10).joined(separator: ", "))")
    }
}
