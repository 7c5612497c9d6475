import Foundation
import JuiceMakerCore
import JuiceMakerPluginKit
import JuiceTestSupport
import LoggerPlugin
import Testing

/// A log that cannot be written costs one error line and never an order.
@Suite("Logger failures", .tags(.unit))
struct LoggerFailureTests {
    private func logger(_ rig: Rig, path: String, stateDirectory: String) throws -> EventLogger {
        try EventLogger(
            configuration: section(0, [("path", .string(path))]),
            context: rig.context(name: "audit-log", stateDirectory: stateDirectory))
    }

    /// Attaches, makes orders, shuts down; returns the errors reported.
    private func run(path: String, stateDirectory: String) async throws -> [String] {
        let rig = Rig(stock: Stock(repeating: 1_000))
        let logger = try logger(rig, path: path, stateDirectory: stateDirectory)
        try logger.attach(to: rig.host)
        for _ in 0..<100 {
            #expect(try rig.maker.make(.banana) != .insufficient(shortages: .zero))
        }
        #expect(try rig.maker.stock().banana == 800)
        await logger.shutdown(deadline: generousDeadline())
        return rig.errors.all
    }

    @Test func aPathWhoseParentIsAFileIsOneErrorAndOrdersGoOn() async throws {
        let directory = try TemporaryDirectory()
        try "not a directory\n".write(toFile: directory.file("blocker"), atomically: false, encoding: .utf8)
        let errors = try await run(path: "blocker/juice.log", stateDirectory: directory.path)
        #expect(errors.count == 1)
        // The host puts the subscriber's name in front; the plugin does not repeat it.
        #expect(errors.first?.contains("audit-log") == false)
        #expect(errors.first?.contains(directory.file("blocker/juice.log")) == true)
        #expect(errors.first?.contains("\n") == false)
    }

    @Test func aDirectoryPathIsOneErrorAndOrdersGoOn() async throws {
        let directory = try TemporaryDirectory()
        let errors = try await run(path: directory.path, stateDirectory: "/")
        #expect(errors.count == 1)
        #expect(errors.first?.contains(directory.path) == true)
    }

    @Test(.enabled(if: FileManager.default.isWritableFile(atPath: "/dev/full")))
    func aFullDiskIsOneErrorAndOrdersGoOn() async throws {
        let errors = try await run(path: "/dev/full", stateDirectory: "/")
        #expect(errors.count == 1, "\(errors)")
        #expect(errors.first?.contains("/dev/full") == true)
    }

    @Test func aStuckLogNeverHoldsUpOrdersNorExit() async throws {
        let rig = Rig(stock: Stock(repeating: 1_000_000))
        let stuck = StuckSink()
        defer { stuck.release() }
        let context = PluginContext(
            name: "audit-log", language: .english, colorAllowed: false, stateDirectory: "/nonexistent",
            environment: [:], standardOutput: rig.output, standardError: stuck)
        let logger = try EventLogger(configuration: section(0, []), context: context)
        try logger.attach(to: rig.host)
        // Far more events than the mailbox holds, while not one line can be written.
        let orders = EventLogger.mailboxCapacity
        for _ in 0..<orders {
            try rig.maker.make(.banana)
        }
        #expect(try rig.maker.stock().banana == 1_000_000 - 2 * orders)
        // Returns although every write is stuck (the test would hang otherwise).
        await logger.shutdown(deadline: .now + .milliseconds(200))
        let errors = rig.errors.all
        #expect(errors.count == 1)
        #expect(errors.first?.contains("were not logged") == true)
        #expect(errors.first?.contains("could not be written before exit") == true)
    }

    @Test func shutdownWithoutAttachIsHarmless() async throws {
        let rig = Rig()
        let logger = try logger(rig, path: "never.log", stateDirectory: "/nonexistent")
        await logger.shutdown(deadline: generousDeadline())
        #expect(rig.errors.all.isEmpty)
    }
}

/// A sink whose writes wait until `release()`: a pipe nobody reads, a hung disk.
private final class StuckSink: TextSink {
    let isTerminal = false
    private let gate = DispatchSemaphore(value: 0)

    func write(_ text: String) {
        gate.wait()
        gate.signal()
    }

    func release() {
        gate.signal()
    }
}
