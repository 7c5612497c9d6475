import Foundation
import JuiceJSON
import JuiceMakerCore
import JuiceMakerPluginKit
import JuicePrimitives
import JuiceTestSupport
import LoggerPlugin
import Testing

@Suite("Logger", .tags(.unit))
struct LoggerTests {
    /// A logger built from `values`, attached to `rig`, with the state directory `directory`.
    private func attachedLogger(
        _ rig: Rig, directory: TemporaryDirectory, _ values: [(key: String, value: JSONValue)]
    ) throws -> EventLogger {
        let logger = try EventLogger(
            configuration: section(0, values), context: rig.context(name: "logger", stateDirectory: directory.path))
        try logger.attach(to: rig.host)
        return logger
    }

    private func lines(of path: String) throws -> [String] {
        splitLines(try String(contentsOfFile: path, encoding: .utf8))
    }

    /// A failure, a restock and two successes: every kind of event, at every level.
    private func someOrders(_ maker: JuiceMaker) throws {
        try maker.make(.mangoKiwi)
        try maker.make(.strawberry)
        try maker.add(10, of: .strawberry)
        try maker.make(.strawberry)
    }

    @Test func textLinesAreStableAndGrepable() async throws {
        let directory = try TemporaryDirectory()
        let rig = Rig()
        let logger = try attachedLogger(rig, directory: directory, [("path", .string("juice.log"))])
        try someOrders(rig.maker)
        await logger.shutdown(deadline: generousDeadline())

        let journal = try rig.journal()
        let expected = journal.map { envelope -> String in
            let head = RFC3339.format(envelope.time) + " "
            let tail = " change=\(envelope.changeID) id=\(envelope.id)"
            let s = "seq=\(envelope.sequence)"
            switch envelope.event {
            case let .juiceMade(juice, count, _) where juice == .mangoKiwi:
                return head + "notice juiceMade \(s) juice=mango-kiwi count=\(count) consumed=kiwi:1,mango:2" + tail
            case .juiceMade:
                return head + "notice juiceMade \(s) juice=strawberry count=1 consumed=strawberry:16" + tail
            case .orderFailed:
                return head + "warning orderFailed \(s) juice=strawberry count=1 shortages=strawberry:6" + tail
            case let .stockChanged(fruit, from, to, reason):
                return head + "info stockChanged \(s) fruit=\(fruit.id) from=\(from) to=\(to) reason=\(reason.rawValue)" + tail
            }
        }
        #expect(journal.count == 7)
        #expect(try lines(of: directory.file("juice.log")) == expected)
        #expect(rig.errors.all.isEmpty)
    }

    @Test func jsonLinesDecodeToTheJournalInOrder() async throws {
        let directory = try TemporaryDirectory()
        let rig = Rig()
        let logger = try attachedLogger(
            rig, directory: directory,
            [
                ("format", .string("json")), ("path", .string(directory.file("events.jsonl"))),
            ])
        try someOrders(rig.maker)
        await logger.shutdown(deadline: generousDeadline())

        let decoded = try lines(of: directory.file("events.jsonl")).map { try CloudEventFormat.decode($0) }
        #expect(decoded == (try rig.journal()))
    }

    @Test func levelsFilterKindsBelowThem() async throws {
        let expectations: [(level: String, kinds: Set<EventKind>)] = [
            ("trace", [.stockChanged, .juiceMade, .orderFailed]),
            ("info", [.stockChanged, .juiceMade, .orderFailed]),
            ("notice", [.juiceMade, .orderFailed]),
            ("warning", [.orderFailed]),
            ("error", []),
        ]
        for (level, kinds) in expectations {
            let directory = try TemporaryDirectory()
            let rig = Rig()
            let logger = try attachedLogger(
                rig, directory: directory,
                [
                    ("level", .string(level)), ("format", .string("json")), ("path", .string("l.jsonl")),
                ])
            #expect(logger.loggedKinds == kinds)
            try someOrders(rig.maker)
            await logger.shutdown(deadline: generousDeadline())
            let logged = try lines(of: directory.file("l.jsonl")).map { try CloudEventFormat.decode($0) }
            #expect(logged == (try rig.journal()).filter { kinds.contains($0.event.kind) }, "level \(level)")
        }
    }

    @Test func eventsFilterCombinesWithLevel() async throws {
        let directory = try TemporaryDirectory()
        let rig = Rig()
        let logger = try attachedLogger(
            rig, directory: directory,
            [
                ("level", .string("debug")), ("events", .array([.string("juiceMade"), .string("juicemaker.order.failed")])),
                ("path", .string("filtered.log")),
            ])
        try someOrders(rig.maker)
        await logger.shutdown(deadline: generousDeadline())
        let words = try lines(of: directory.file("filtered.log")).map { $0.split(separator: " ")[2] }
        #expect(words == ["juiceMade", "orderFailed", "juiceMade"])
    }

    @Test func defaultPathIsStandardError() async throws {
        let directory = try TemporaryDirectory()
        let rig = Rig()
        let logger = try attachedLogger(rig, directory: directory, [])
        #expect(logger.resolvedPath == nil)
        try rig.maker.make(.banana)
        await logger.shutdown(deadline: generousDeadline())
        #expect(rig.standardError.lines.count == 2)
        #expect(rig.standardError.lines.first?.contains(" notice juiceMade seq=1 juice=banana count=1 consumed=banana:2 ") == true)
        #expect(rig.output.texts.isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }

    @Test func fileIsAppendedToAndRelativePathsResolveAgainstTheStateDirectory() async throws {
        let directory = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory.file("logs"), withIntermediateDirectories: false)
        try "kept line\n".write(toFile: directory.file("logs/juice.log"), atomically: false, encoding: .utf8)
        for _ in 0..<2 {
            let rig = Rig()
            let logger = try attachedLogger(rig, directory: directory, [("path", .string("logs/juice.log"))])
            #expect(logger.resolvedPath == directory.file("logs/juice.log"))
            try rig.maker.make(.banana)
            await logger.shutdown(deadline: generousDeadline())
        }
        let lines = try lines(of: directory.file("logs/juice.log"))
        #expect(lines.count == 5)
        #expect(lines.first == "kept line")
        #expect(lines.filter { $0.contains(" juiceMade seq=1 ") }.count == 2)
    }

    @Test func homeRelativePath() throws {
        let rig = Rig()
        // HOME must exist: a log in a directory that does not is refused (next test).
        let home = try TemporaryDirectory()
        let logger = try EventLogger(
            configuration: section(0, [("path", .string("~/juice.log"))]),
            context: rig.context(stateDirectory: "/state", environment: ["HOME": home.path]))
        #expect(logger.resolvedPath == home.path + "/juice.log")
    }

    @Test func aLogInADirectoryThatDoesNotExistIsAConfigError() throws {
        let rig = Rig()
        #expect(throws: ConfigurationError.self) {
            try EventLogger(
                configuration: section(0, [("path", .string("~/juice.log"))]),
                context: rig.context(stateDirectory: "/state", environment: ["HOME": "/nonexistent/someone"]))
        }
    }

    @Test func shutdownFlushesEverythingAccepted() async throws {
        let directory = try TemporaryDirectory()
        let rig = Rig(stock: Stock(repeating: 1_000_000))
        let logger = try attachedLogger(rig, directory: directory, [("format", .string("json")), ("path", .string("many.jsonl"))])
        for _ in 0..<1_000 {
            try rig.maker.make(.banana)
        }
        await logger.shutdown(deadline: generousDeadline())
        let journal = try rig.journal()
        #expect(journal.count == 2_000)
        let logged = try lines(of: directory.file("many.jsonl")).map { try CloudEventFormat.decode($0) }
        #expect(logged.count == journal.count)
        #expect(logged == journal)
        #expect(rig.errors.all.isEmpty)
    }

    @Test func configErrorsNameThePath() {
        let rig = Rig()
        let cases: [(values: [(key: String, value: JSONValue)], path: String, mentions: String)] = [
            ([("level", .number(3))], "subscribers[0].level", "critical, found a number"),
            ([("level", .string("loud"))], "subscribers[0].level", "critical"),
            ([("format", .string("xml"))], "subscribers[0].format", "json"),
            ([("path", .bool(true))], "subscribers[0].path", "file path, found a boolean"),
            ([("path", .string(""))], "subscribers[0].path", "stderr"),
            ([("events", .array([.string("stockChanged"), .number(1)]))], "subscribers[0].events[1]", "found a number"),
        ]
        for (values, path, mentions) in cases {
            #expect {
                try EventLogger(configuration: section(0, values), context: rig.context())
            } throws: { error in
                guard let error = error as? ConfigurationError else { return false }
                return error.path == path && error.problem.contains(mentions) && error.description.contains(path)
            }
        }
    }
}
