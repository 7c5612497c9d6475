import JuiceMakerCore
import SQLiteStore

/// Every figure `juice report` shows, computed once from the store's hourly sums and
/// printed as text, JSON or SVG.
struct ReportFigures: Sendable {
    struct Sale: Sendable {
        let juice: Juice
        let orders: Int
        let cups: Int
        /// `cups` over every cup sold in the window (0 when none were).
        let share: Double
    }

    struct Shortage: Sendable {
        let fruit: Fruit
        /// Failed orders that were short of this fruit.
        let orders: Int
        /// How much was missing, summed over those orders.
        let missing: Int
    }

    struct LostSale: Sendable {
        let juice: Juice
        let orders: Int
        let cups: Int
        let shortages: [Shortage]
    }

    struct Period: Sendable {
        /// The bucket's first hour (hours since the epoch).
        let startHour: Int64
        let consumed: FruitAmounts
    }

    struct FruitOutlook: Sendable {
        let fruit: Fruit
        let quantity: Int
        let consumed: Int
        /// Consumed per hour over the window.
        let perHour: Double
        /// Hours until it runs out at `perHour`; nil when it was not used.
        let hoursLeft: Double?
        let runsOutFirst: Bool
    }

    let window: ReportWindow
    let sales: [Sale]
    let orders: Int
    let cups: Int
    let lostSales: [LostSale]
    let consumed: FruitAmounts
    let periods: [Period]
    let outlook: [FruitOutlook]
    let unknownEvents: Int
    let throughSequence: Int64
    let journalIsEmpty: Bool

    var isQuiet: Bool { orders == 0 && lostSales.isEmpty }

    init(_ snapshot: ReportSnapshot, window: ReportWindow) {
        self.window = window
        var sold: [Juice: (orders: Int, cups: Int)] = [:]
        var lost: [Juice: (orders: Int, cups: Int)] = [:]
        var short: [Juice: [Fruit: (orders: Int, missing: Int)]] = [:]
        var consumed = FruitAmounts()
        var perBucket: [Int64: FruitAmounts] = [:]
        var unknown = 0
        for row in snapshot.rows where row.hour >= window.firstHour && row.hour <= window.lastHour {
            switch row.kind {
            case .sale, .lostSale:
                guard let juice = Juice(rawValue: row.item) else {
                    unknown += row.events
                    continue
                }
                if row.kind == .sale {
                    sold[juice, default: (0, 0)].orders += row.events
                    sold[juice, default: (0, 0)].cups += row.amount
                } else {
                    lost[juice, default: (0, 0)].orders += row.events
                    lost[juice, default: (0, 0)].cups += row.amount
                }
            case .shortage:
                guard let juice = Juice(rawValue: row.item), let fruit = Fruit(rawValue: row.fruit) else { continue }
                short[juice, default: [:]][fruit, default: (0, 0)].orders += row.events
                short[juice, default: [:]][fruit, default: (0, 0)].missing += row.amount
            case .consumed:
                guard let fruit = Fruit(rawValue: row.item) else { continue }
                consumed[fruit] += row.amount
                perBucket[window.bucket.start(ofHour: row.hour), default: FruitAmounts()][fruit] += row.amount
            case .unknown:
                unknown += row.events
            }
        }
        let cups = sold.values.reduce(0) { $0 + $1.cups }
        self.cups = cups
        orders = sold.values.reduce(0) { $0 + $1.orders }
        sales = Juice.allCases.compactMap { juice in
            sold[juice].map { Sale(juice: juice, orders: $0.orders, cups: $0.cups, share: cups == 0 ? 0 : Double($0.cups) / Double(cups)) }
        }.sorted { $0.cups > $1.cups }
        lostSales = Juice.allCases.compactMap { juice in
            lost[juice].map { totals in
                LostSale(
                    juice: juice, orders: totals.orders, cups: totals.cups,
                    shortages: Fruit.allCases.compactMap { fruit in
                        short[juice]?[fruit].map { Shortage(fruit: fruit, orders: $0.orders, missing: $0.missing) }
                    })
            }
        }.sorted { $0.orders > $1.orders }
        self.consumed = consumed
        periods = window.bucketStarts.map { Period(startHour: $0, consumed: perBucket[$0] ?? FruitAmounts()) }
        let hours = window.hours
        let lasting = Fruit.allCases.map { fruit -> (Fruit, Double, Double?) in
            let perHour = Double(consumed[fruit]) / hours
            return (fruit, perHour, perHour > 0 ? Double(snapshot.stock[fruit]) / perHour : nil)
        }
        let soonest = lasting.compactMap(\.2).min()
        outlook = lasting.map { fruit, perHour, hoursLeft in
            FruitOutlook(
                fruit: fruit, quantity: snapshot.stock[fruit], consumed: consumed[fruit], perHour: perHour,
                hoursLeft: hoursLeft, runsOutFirst: hoursLeft != nil && hoursLeft == soonest)
        }
        unknownEvents = unknown
        throughSequence = snapshot.throughSequence
        journalIsEmpty = snapshot.journalIsEmpty
    }

    // MARK: Pick list

    /// What to bring of each fruit: enough for `coverHours` at the window's rate
    /// (`ceil(consumed × cover / window) − stock`, in whole milliseconds, no rounding
    /// error), or enough to reach `target`.
    func picklist(_ mode: PicklistMode) -> [(fruit: Fruit, have: Int, need: Int, bring: Int)] {
        outlook.map { item in
            let need: Int
            switch mode {
            case .target(let target):
                need = target
            case .cover(let duration):
                let coverMilliseconds = Int128(duration.hours * ReportDuration.hourMilliseconds)
                let windowMilliseconds = Int128(window.untilMilliseconds - window.sinceMilliseconds)
                let numerator = Int128(item.consumed) * coverMilliseconds
                need = Int((numerator + windowMilliseconds - 1) / windowMilliseconds)
            }
            return (item.fruit, item.quantity, need, max(0, need - item.quantity))
        }
    }
}

/// `--cover 2d` or `--target N`.
enum PicklistMode: Sendable {
    case cover(ReportDuration)
    case target(Int)
}

extension ReportSnapshot {
    /// The same sums as the store's projection, folded in Swift from events: for
    /// stores without one (`--in-memory`).
    static func folding(_ events: [EventEnvelope], stock: Stock, firstHour: Int64, lastHour: Int64) -> ReportSnapshot {
        struct Key: Hashable {
            let hour: Int64, kind: Int, item: String, fruit: String
        }
        var sums: [Key: (events: Int, amount: Int)] = [:]
        func add(_ hour: Int64, _ kind: Row.Kind, _ item: String, _ fruit: String = "", amount: Int) {
            let key = Key(hour: hour, kind: kind.rawValue, item: item, fruit: fruit)
            sums[key, default: (0, 0)].events += 1
            sums[key, default: (0, 0)].amount += amount
        }
        for envelope in events {
            let hour = floorDivide(Int64((envelope.time.timeIntervalSince1970 * 1000).rounded()), ReportDuration.hourMilliseconds)
            guard hour >= firstHour, hour <= lastHour else { continue }
            switch envelope.event {
            case let .juiceMade(juice, count, used):
                add(hour, .sale, juice.id, amount: count)
                for item in used.nonZero { add(hour, .consumed, item.fruit.id, amount: item.amount) }
            case let .orderFailed(juice, count, shortages):
                add(hour, .lostSale, juice.id, amount: count)
                for item in shortages.nonZero { add(hour, .shortage, juice.id, item.fruit.id, amount: item.amount) }
            case .stockChanged:
                break
            }
        }
        let rows = sums.compactMap { key, value in
            Row.Kind(rawValue: key.kind).map {
                Row(hour: key.hour, kind: $0, item: key.item, fruit: key.fruit, events: value.events, amount: value.amount)
            }
        }
        return ReportSnapshot(rows: rows, stock: stock, throughSequence: events.last?.sequence ?? 0, journalIsEmpty: events.isEmpty)
    }
}
