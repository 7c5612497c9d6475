import JuiceMakerCore
import JuiceMakerPluginKit
import Testing

@testable import JuiceCLI
@testable import SQLiteStore

/// Every message that prints a count beside a noun says one or many by the count
/// (`EnglishCount`): `1 event waits`, `2 events wait`. Korean has no plural.
@Suite(.tags(.unit)) struct PluralTests {
    /// A message, made with a count, and what its English says for 1 and for 2.
    struct Counted: CustomTestStringConvertible, Sendable {
        var testDescription: String { name }
        let english: @Sendable (Int) -> String
        let name: String, one: String, two: String

        init(_ name: String, _ one: String, _ two: String, _ english: @escaping @Sendable (Int) -> String) {
            (self.name, self.one, self.two, self.english) = (name, one, two, english)
        }
    }

    private static let retry = DeliveryRetryState(sequence: 3, attempts: 1, nextAttemptAt: 0, lastError: "refused")

    static let messages: [Counted] = [
        Counted("report cups", "1 cup ", "2 cups ") { Catalog.Report.cups($0, share: 0.5).english },
        Counted("report total", "1 cup in 1 order", "2 cups in 2 orders") { Catalog.Report.totalCups($0, orders: $0).english },
        Counted("report lost", "1 failed order, 1 cup", "2 failed orders, 2 cups") { Catalog.Report.lost(orders: $0, cups: $0).english },
        Counted("report short", "in 1 order", "in 2 orders") { Catalog.Report.short(.mango, missing: 3, orders: $0).english },
        Counted("about hours", "about 1 hour", "about 2 hours") { Catalog.Report.aboutHours($0).english },
        Counted("about days", "about 1 day", "about 2 days") { Catalog.Report.aboutDays($0).english },
        Counted("unknown events", "* 1 event of", "* 2 events of") { Catalog.Report.unknownEvents($0).english },
        Counted("unknown events, verb", "was skipped", "were skipped") { Catalog.Report.unknownEvents($0).english },
        Counted("failing", "1 event waits", "2 events wait") { Catalog.Delivery.failing("hook", waiting: Int64($0), retry: retry).english },
        Counted("stopped", "1 event waits", "2 events wait") {
            var stopped = retry
            stopped.disabled = true
            return Catalog.Delivery.failing("hook", waiting: Int64($0), retry: stopped).english
        },
        Counted("redelivered", "1 dead letter delivered", "2 dead letters delivered") { Catalog.Delivery.redelivered("hook", count: $0).english },
        Counted("losses acknowledged", "1 range of", "2 ranges of") { Catalog.Delivery.lossesAcknowledged("hook", ranges: $0).english },
        Counted("letters of a gone stream", "1 dead letter belongs", "2 dead letters belong") {
            Catalog.Delivery.lettersOfGoneStream("hook", count: $0).english
        },
        Counted("order above the maximum", "cannot order 1 mango juice:", "cannot order 2 mango juices:") {
            Catalog.Errors.countAboveMaximum(.mango, "\($0)", maximum: 0).english
        },
        Counted("invalid count", "cannot order 1 juice;", "cannot order 2 juices;") { Catalog.Errors.invalidCount($0).english },
        Counted("fleet retention", "up to 1 byte", "up to 2 bytes") {
            Catalog.Fleet.retention(.init(name: "S", maxAge: nil, maxBytes: Int64($0)))?.english ?? ""
        },
        Counted("compacted", "1 event older than 1 day", "2 events older than 2 days") { count in
            compacted(count)
        },
        Counted("compacted, transactions", "(1 transaction,", "(2 transactions,") { count in compacted(count) },
        Counted("rewound", "the 1 event after it is sent again", "the 2 events after it are sent again") {
            Catalog.Delivery.rewound("hook", CursorRewind(subscriber: "hook", from: 9, to: 5, at: 0), last: 5 + Int64($0)).english
        },
        Counted("fleet rewound", "its 1 message from", "its 2 messages from") {
            Catalog.Delivery.fleetRewound("hook", stream: "S", point: .sequence(4), messages: UInt64($0)).english
        },
        Counted("check damaged", "found 1 problem (", "found 2 problems (") {
            Catalog.StoreCommands.checkDamaged("s.db", problems: $0, more: false).english
        },
        Counted("backed up", "(1 page,", "(2 pages,") { Catalog.StoreCommands.backedUp("s.db", to: "b.db", pages: $0).english },
        Counted("too few items", "found 1 item", "found 2 items") {
            ConfigurationError.Reason.tooFewItems(found: $0, expected: .string).description
        },
        Counted("too long", "is 1 character long", "is 2 characters long") {
            ConfigurationError.Reason.tooLong(noun: "name", length: $0, maximum: 0).description
        },
        Counted("not a database", "(1 byte of something else", "(2 bytes of something else") {
            StoreError.Reason.notADatabase(size: Int64($0)).description
        },
    ]

    private static func compacted(_ count: Int) -> String {
        let result = CompactionResult(
            deletedEvents: count, historyStart: 9, limit: .retention, batches: count, longestBatchMilliseconds: 1, freedPages: 0,
            givesSpaceBack: true)
        return Catalog.StoreCommands.compacted(result, store: "s.db", days: count).map(\.english).joined(separator: "\n")
    }

    @Test(arguments: messages)
    func oneAndManyAreSaidByTheCount(message: Counted) {
        let (one, two) = (message.english(1), message.english(2))
        #expect(one.contains(message.one), "\(one)")
        #expect(two.contains(message.two), "\(two)")
        for text in [one, two] { #expect(!text.contains("(s)"), "\(text)") }
    }

    @Test func theHelperSaysOneOrMany() {
        #expect(EnglishCount.of(1, "event") == "1 event")
        #expect(EnglishCount.of(0, "event") == "0 events")
        #expect(EnglishCount.of(Int64(2), "dead letter") == "2 dead letters")
        #expect(EnglishCount.of(1, "entry", plural: "entries") == "1 entry")
        #expect(EnglishCount.of("1", "juice") == "1 juice")
        #expect(EnglishCount.of("99999999999999999999", "juice") == "99999999999999999999 juices")
        #expect(EnglishCount.choose(1, "waits", "wait") == "waits")
    }
}
