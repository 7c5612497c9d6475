import Foundation
import JuiceMakerCore
import JuiceMakerPluginKit
import JuiceTestSupport
import Locking
import MetricsPlugin
import Testing

@Suite("Metrics textfile", .tags(.process), .notInUnitRun, .offPool)
struct MetricsTextfileTests {
    /// While one thread orders, another reads the textfile over and over: every read
    /// is a whole file in the exposition format (never empty, cut short or mixed), and
    /// no read shows a shorter journal than one before it. At the end the file shows
    /// every order, and the fruit consumed is the recipes of the juices made.
    @Test func aReaderNeverSeesHalfAFile() async throws {
        let directory = try TemporaryDirectory()
        let rig = Rig(stock: Stock(repeating: 1_000_000))
        let path = directory.file("juice.prom")
        let plugin = try MetricsTextfile(
            configuration: section([("path", .string("juice.prom"))]), context: rig.context(name: "metrics", stateDirectory: directory.path))
        #expect(plugin.resolvedPath == path)
        try plugin.attach(to: rig.host)

        let finished = Locked(false)
        let reads = Locked<(count: Int, problems: [String], lastEvents: Double)>((0, [], 0))
        let made = Locked<[Juice: Int]>([:])
        let juices = Juice.allCases
        // Orders go on until the reader has read the file 200 times (or 50,000 orders
        // were made), so reads and writes overlap however fast either side runs.
        runThreads(2) { index in
            if index == 0 {
                var generator = SeededGenerator(seed: 0x3e7a)
                for _ in 0..<50_000 where reads.withLock({ $0.count }) < 200 {
                    let juice = juices[Int(generator.next() % UInt64(juices.count))]
                    let count = 1 + Int(generator.next() % 3)
                    if case .made = try? rig.maker.make(juice, count: count) { made.withLock { $0[juice, default: 0] += count } }
                }
                finished.withLock { $0 = true }
                return
            }
            while !finished.withLock({ $0 }) {
                guard let data = FileManager.default.contents(atPath: path) else { continue }
                let text = String(decoding: data, as: UTF8.self)
                reads.withLock { reads in
                    reads.count += 1
                    switch Exposition.parse(text) {
                    case .failure(let failure):
                        reads.problems.append("\(failure): \(text.suffix(80).debugDescription)")
                    case .success(let exposition):
                        let events = exposition.value("juicemaker_journal_events_total") ?? -1
                        if events < reads.lastEvents { reads.problems.append("went back from \(reads.lastEvents) to \(events)") }
                        reads.lastEvents = max(reads.lastEvents, events)
                    }
                }
            }
        }
        await plugin.shutdown(deadline: generousDeadline())
        #expect(reads.withLock { $0.problems } == [])
        #expect(reads.withLock { $0.count } >= 200)
        #expect(rig.errors.all == [])

        guard case .success(let final) = Exposition.parse(try String(contentsOfFile: path, encoding: .utf8)) else {
            Issue.record("the final file does not parse")
            return
        }
        #expect(final.value("juicemaker_journal_events_total") == Double(try rig.store.lastSequence()))
        let madeCups = made.withLock { $0 }
        for juice in juices {
            #expect(final.value("juicemaker_juices_made_total", "juice", juice.id) == Double(madeCups[juice] ?? 0))
        }
        for fruit in Fruit.allCases {
            let fromRecipes = juices.reduce(0) { $0 + $1.recipe[fruit] * (madeCups[$1] ?? 0) }
            #expect(final.value("juicemaker_fruit_consumed_total", "fruit", fruit.id) == Double(fromRecipes))
            #expect(final.value("juicemaker_fruit_in_stock", "fruit", fruit.id) == Double(1_000_000 - fromRecipes))
        }
        // Nothing but the file is left in the directory: no temporary file.
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["juice.prom"])
    }

    /// Label values with a backslash, a double quote or a line feed are escaped as the
    /// format says: the text reads back to the same names, and promtool finds nothing.
    @Test func labelValuesAreEscaped() throws {
        let names = ["plain", #"back\slash"#, #"say "hi""#, "two\nlines", #"\n"#, "한국어"]
        let figures = MetricsFigures(
            totals: JournalTotals(
                juicesMade: ["mango": 2, "from-a-newer-juice": 1], ordersFailed: ["kiwi": 1], fruitConsumed: ["mango": 6],
                stock: Stock(repeating: 4), events: 9, storeBytes: 4096),
            subscribers: names.enumerated().map { index, name in
                MetricsFigures.Subscriber(
                    name: name, lag: Int64(index), deadLetters: index, lastSuccess: index.isMultiple(of: 2) ? 1.7e9 + 0.25 : nil)
            })
        let text = MetricsExposition.render(figures)
        guard case .success(let exposition) = Exposition.parse(text) else {
            Issue.record("does not parse: \(text)")
            return
        }
        for (index, name) in names.enumerated() {
            #expect(exposition.value("juicemaker_subscriber_lag_events", "subscriber", name) == Double(index))
            #expect(exposition.value("juicemaker_subscriber_dead_letters", "subscriber", name) == Double(index))
            let success = exposition.value("juicemaker_subscriber_last_success_timestamp_seconds", "subscriber", name)
            #expect(success == (index.isMultiple(of: 2) ? 1.7e9 + 0.25 : nil))
        }
        #expect(exposition.value("juicemaker_juices_made_total", "juice", "from-a-newer-juice") == 1)
        #expect(exposition.value("juicemaker_orders_failed_total", "juice", "from-a-newer-juice") == 0)
        #expect(exposition.value("juicemaker_store_size_bytes") == 4096)
        // Each family declared once, counters ending in _total and nothing else.
        for (family, type) in exposition.types {
            #expect(family.hasSuffix("_total") == (type == "counter"), "\(family) is a \(type)")
            #expect(occurrences("# TYPE \(family) ", in: text) == 1)
            #expect(occurrences("# HELP \(family) ", in: text) == 1)
        }
        if let findings = try promtoolFindings(text) { #expect(findings == "") }
    }

    /// A path in a directory that does not exist is refused as a config error naming
    /// the key; nothing is written.
    @Test func aMissingDirectoryIsAConfigError() throws {
        let directory = try TemporaryDirectory()
        let rig = Rig()
        #expect {
            _ = try MetricsTextfile(
                configuration: section(2, [("path", .string("missing/juice.prom"))]),
                context: rig.context(name: "metrics", stateDirectory: directory.path))
        } throws: { error in
            (error as? ConfigurationError)?.path == "subscribers[2].path" && "\(error)".contains(directory.file("missing"))
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == [])
    }

    private func occurrences(_ needle: String, in text: String) -> Int {
        text.components(separatedBy: needle).count - 1
    }
}
