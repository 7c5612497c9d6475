import Foundation
import JuiceTestSupport
import Testing

/// The start-up rules of the performance article ("Start-up rules"), held against the
/// debug `juice`, which loads the Swift libraries as shared objects, so what it imports
/// from each is what every module linked into `juice` uses:
/// - **Date only**: of FoundationEssentials `juice` uses `Date`; its `URL`, `Data`,
///   `FileManager`, `JSONDecoder` or base64 bring tables the loader relocates at every start.
/// - **No regular expressions**: nothing of `_StringProcessing` or `_RegexParser`.
/// - **Loaded when needed**: libssl, readline and libnats are opened on first use, never
///   linked; Foundation, FoundationNetworking, ICU and libcurl are never loaded at all.
@Suite(
    .tags(.process), .notInUnitRun, .offPool,
    .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/nm"), "binutils' nm is not installed"))
struct FoundationUseTests {
    private static func output(_ tool: String, _ arguments: [String]) throws -> String {
        let result = try runProgram(tool, arguments)
        #expect(result.status == 0, "\(result.stderr)")
        return result.stdout
    }

    private static func importedSymbols() throws -> [Substring] {
        try output("/usr/bin/nm", ["--dynamic", "--undefined-only", "--format=just-symbols", juiceExecutable]).split(separator: "\n")
    }

    @Test func juiceImportsOnlyDateFromFoundationEssentials() throws {
        let symbols = try Self.importedSymbols()
        // The check itself works: the binary imports Date from it.
        #expect(symbols.contains { $0.hasPrefix("$s20FoundationEssentials4DateV") })
        let others = symbols.filter {
            ($0.contains("20FoundationEssentials") && !$0.hasPrefix("$s20FoundationEssentials4DateV")) || $0.hasPrefix("$s10Foundation")
        }
        #expect(others.isEmpty, "juice uses more of Foundation than Date: \(others.prefix(10).joined(separator: ", "))")
    }

    @Test func juiceUsesNoRegularExpressions() throws {
        let symbols = try Self.importedSymbols()
        #expect(symbols.contains { $0.hasPrefix("$s8Dispatch") }, "the check itself works: juice imports Dispatch")
        let regex = symbols.filter { $0.contains("17_StringProcessing") || $0.contains("12_RegexParser") }
        #expect(regex.isEmpty, "juice uses Regex: \(regex.prefix(10).joined(separator: ", "))")
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/readelf")))
    func juiceLinksNoLibraryItLoadsOnFirstUseOrNeverNeeds() throws {
        let needed = try Self.output("/usr/bin/readelf", ["-d", juiceExecutable]).split(separator: "\n")
            .filter { $0.contains("(NEEDED)") }
        #expect(needed.contains { $0.contains("libsqlite3") }, "the check itself works: juice links sqlite3")
        for forbidden in ["libFoundation.so", "libFoundationNetworking", "libcurl", "libicu", "libssl", "libcrypto", "libreadline", "libnats"] {
            #expect(!needed.contains { $0.contains(forbidden) }, "juice links \(forbidden)")
        }
    }
}
