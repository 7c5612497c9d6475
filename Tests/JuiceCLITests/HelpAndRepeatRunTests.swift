import Foundation
import JuiceTestSupport
import Testing

/// What a person sees running `juice help` after global options, `juice help` with a
/// word that names nothing, and an option given twice.
@Suite(.tags(.process), .notInUnitRun) struct HelpAndRepeatRunTests {
    @Test func helpAfterGlobalOptionsShowsTheTopic() throws {
        let sandbox = try JuiceSandbox()
        let config = try sandbox.run(["--store", "s.db", "help", "config"])
        #expect(config.status == 0, "\(config.stderr)")
        #expect(config.stdout.contains("CONFIGURATION"), "\(config.stdout)")
        let codes = try sandbox.run(["--lang", "ko", "--quiet", "--no-color", "--in-memory", "help", "exit-codes"])
        #expect(codes.status == 0, "\(codes.stderr)")
        #expect(codes.stdout.contains("64"), "\(codes.stdout)")
    }

    @Test func anUnknownHelpTopicIsOneErrorLineAndExit64() throws {
        let sandbox = try JuiceSandbox()
        let result = try sandbox.run(["help", "nosuch"])
        #expect(result.status == 64)
        #expect(result.stdout.isEmpty, "\(result.stdout)")
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.first?.hasPrefix("Error: unknown help topic or command 'nosuch'.") == true, "\(result.stderr)")
        #expect(lines.dropFirst().allSatisfy { $0.hasPrefix("Usage: ") || $0.hasPrefix("  ") }, "\(result.stderr)")
        let codes = try sandbox.run(["help", "exit-codes"])
        #expect(codes.stdout.contains("an unknown help topic"), "\(codes.stdout)")
    }

    @Test func anOptionGivenTwiceIsRefusedAndChangesNothing() throws {
        let sandbox = try JuiceSandbox()
        let before = sandbox.storeBytes()
        let result = try sandbox.run(["subscribers", "rewind", "audit", "--to", "1", "--to", "6"])
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("Error: '--to <"), "\(result.stderr)")
        #expect(result.stderr.contains("is given more than once; give it once."), "\(result.stderr)")
        #expect(sandbox.storeBytes() == before)
        let codes = try sandbox.run(["help", "exit-codes"])
        #expect(codes.stdout.contains("an option given twice"), "\(codes.stdout)")
    }
}
