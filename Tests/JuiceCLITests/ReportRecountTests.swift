import Foundation
import JuiceTestSupport
import Testing

/// Every figure `juice report --json` and `juice report picklist --json` print equals
/// an independent recount from `juice events --json` and `juice stock --json`, over
/// seeded random histories spread across weeks, for several windows and buckets, and
/// again after more orders arrive (the projection catches up incrementally).
@Suite(.tags(.process), .notInUnitRun, .offPool) struct ReportRecountTests {
    private static let hour: Int64 = 3_600_000
    private static let day: Int64 = 86_400_000

    /// One event of `juice events --json`, as the test reads it (no project code).
    private struct Event {
        let sequence: Int64
        let time: Int64
        let type: String
        let data: [String: Any]
    }

    private func events(_ sandbox: JuiceSandbox) throws -> [Event] {
        let run = try sandbox.run(["events", "--json"])
        #expect(run.status == 0, "juice events: \(run.stderr)")
        return try run.stdout.split(separator: "\n").map { line in
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let sequence = try #require(object["sequence"] as? String)
            return Event(
                sequence: Int64(sequence) ?? -1,
                time: try milliseconds(object["time"]),
                type: try #require(object["type"] as? String),
                data: try #require(object["data"] as? [String: Any]))
        }
    }

    private func json(_ sandbox: JuiceSandbox, _ arguments: [String]) throws -> [String: Any] {
        let run = try sandbox.run(arguments + ["--json"])
        #expect(run.status == 0, "juice \(arguments): \(run.stderr)")
        return try #require(try run.json() as? [String: Any])
    }

    /// An RFC 3339 time with milliseconds as epoch milliseconds.
    private func milliseconds(_ value: Any?) throws -> Int64 {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let text = try #require(value as? String)
        let date = try #require(formatter.date(from: text))
        return Int64((date.timeIntervalSince1970 * 1000).rounded())
    }

    private func int(_ value: Any?) -> Int { (value as? NSNumber)?.intValue ?? -1 }
    private func int64(_ value: Any?) -> Int64 { (value as? NSNumber)?.int64Value ?? -1 }
    private func double(_ value: Any?) -> Double { (value as? NSNumber)?.doubleValue ?? .nan }

    private func close(_ a: Double, _ b: Double) -> Bool { abs(a - b) <= 1e-9 * max(1, abs(a), abs(b)) }

    /// Monday-aligned UTC week start of `milliseconds`, counted here independently.
    private func bucketStart(_ milliseconds: Int64, by: String) -> Int64 {
        switch by {
        case "hour": return milliseconds / Self.hour * Self.hour
        case "day": return milliseconds / Self.day * Self.day
        default:
            let days = milliseconds / Self.day
            return (days - (days + 3) % 7) * Self.day
        }
    }

    private func check(_ sandbox: JuiceSandbox, since: String, by: String?) throws {
        var arguments = ["report", "--since", since]
        if let by { arguments += ["--by", by] }
        let report = try json(sandbox, arguments)
        let window = try #require(report["window"] as? [String: Any])
        let sinceMs = int64(window["sinceMs"]), untilMs = int64(window["untilMs"]), endMs = int64(window["endMs"])
        let through = int64(report["throughSequence"])
        let bucket = try #require(window["by"] as? String)
        if let by { #expect(bucket == by) }

        // The window: whole hours from the hour that held `until - duration` (or the date's midnight).
        if let hours = Int64(since.dropLast()), let unit = since.last {
            let length = hours * (unit == "h" ? Self.hour : unit == "d" ? Self.day : 7 * Self.day)
            #expect(sinceMs == (untilMs - length) / Self.hour * Self.hour, "window start for \(since)")
        } else {
            let formatter = ISO8601DateFormatter()
            let midnight = try #require(formatter.date(from: since + "T00:00:00Z"))
            #expect(sinceMs == Int64(midnight.timeIntervalSince1970 * 1000))
        }
        #expect(endMs == (untilMs - 1) / Self.hour * Self.hour + Self.hour)

        // The recount, from the journal as `juice events` prints it.
        let all = try events(sandbox)
        #expect(all.last.map(\.sequence) == through)
        let inWindow = all.filter { $0.time >= sinceMs && $0.time < endMs && $0.sequence <= through }
        var sold: [String: (orders: Int, cups: Int)] = [:]
        var lost: [String: (orders: Int, cups: Int)] = [:]
        var short: [String: [String: (orders: Int, missing: Int)]] = [:]
        var consumed: [String: Int] = [:]
        var periods: [Int64: [String: Int]] = [:]
        for event in inWindow {
            let juice = event.data["juice"] as? String ?? "?"
            let count = int(event.data["count"])
            switch event.type {
            case "juicemaker.juice.made":
                sold[juice, default: (0, 0)].orders += 1
                sold[juice, default: (0, 0)].cups += count
                for (fruit, amount) in event.data["consumed"] as? [String: Any] ?? [:] {
                    consumed[fruit, default: 0] += int(amount)
                    periods[bucketStart(event.time, by: bucket), default: [:]][fruit, default: 0] += int(amount)
                }
            case "juicemaker.order.failed":
                lost[juice, default: (0, 0)].orders += 1
                lost[juice, default: (0, 0)].cups += count
                for (fruit, amount) in event.data["shortages"] as? [String: Any] ?? [:] {
                    short[juice, default: [:]][fruit, default: (0, 0)].orders += 1
                    short[juice, default: [:]][fruit, default: (0, 0)].missing += int(amount)
                }
            default: break
            }
        }

        // Sales and shares.
        let sales = try #require(report["sales"] as? [String: Any])
        let cups = sold.values.reduce(0) { $0 + $1.cups }
        #expect(int(sales["cups"]) == cups)
        #expect(int(sales["orders"]) == sold.values.reduce(0) { $0 + $1.orders })
        let juices = try #require(sales["juices"] as? [[String: Any]])
        #expect(juices.count == sold.count)
        for item in juices {
            let juice = try #require(item["juice"] as? String)
            #expect(int(item["orders"]) == sold[juice]?.orders, "\(juice) orders in \(since)")
            #expect(int(item["cups"]) == sold[juice]?.cups, "\(juice) cups in \(since)")
            #expect(close(double(item["share"]), Double(sold[juice]?.cups ?? 0) / Double(cups)))
        }
        #expect(juices.map { int($0["cups"]) } == juices.map { int($0["cups"]) }.sorted(by: >))

        // Lost sales and their shortages.
        let lostSales = try #require(report["lostSales"] as? [[String: Any]])
        #expect(lostSales.count == lost.count)
        for item in lostSales {
            let juice = try #require(item["juice"] as? String)
            #expect(int(item["orders"]) == lost[juice]?.orders)
            #expect(int(item["cups"]) == lost[juice]?.cups)
            let shortages = try #require(item["shortages"] as? [[String: Any]])
            #expect(shortages.count == short[juice]?.count ?? 0)
            for entry in shortages {
                let fruit = try #require(entry["fruit"] as? String)
                #expect(int(entry["orders"]) == short[juice]?[fruit]?.orders, "\(juice) short of \(fruit)")
                #expect(int(entry["missing"]) == short[juice]?[fruit]?.missing, "\(juice) missing \(fruit)")
            }
        }

        // Fruit consumed, in total and per bucket (every bucket of the window listed once).
        let consumedObject = try #require(report["consumed"] as? [String: Any])
        let total = try #require(consumedObject["total"] as? [String: Any])
        for fruit in ["strawberry", "banana", "pineapple", "kiwi", "mango"] {
            #expect(int(total[fruit]) == consumed[fruit] ?? 0, "consumed \(fruit) in \(since)")
        }
        let listed = try #require(consumedObject["periods"] as? [[String: Any]])
        var starts: [Int64] = []
        for period in listed {
            let start = try milliseconds(period["start"])
            starts.append(start)
            let fruits = try #require(period["fruits"] as? [String: Any])
            #expect(fruits.mapValues { int($0) } == periods[start] ?? [:], "period \(start) in \(since) by \(bucket)")
        }
        #expect(starts.first == bucketStart(sinceMs, by: bucket))
        #expect(starts.last == bucketStart(endMs - 1, by: bucket))
        #expect(Set(periods.keys).isSubset(of: Set(starts)))
        #expect(starts == starts.sorted() && Set(starts).count == starts.count)

        // Stock, rates, how long each fruit lasts, which runs out first.
        let stock = try sandbox.stock()
        let hours = Double(untilMs - sinceMs) / Double(Self.hour)
        let outlook = try #require(report["stock"] as? [[String: Any]])
        #expect(outlook.count == 5)
        var hoursLeft: [String: Double] = [:]
        for (fruit, quantity) in stock.mapValues(Double.init) where (consumed[fruit] ?? 0) > 0 {
            hoursLeft[fruit] = quantity / (Double(consumed[fruit] ?? 0) / hours)
        }
        let soonest = hoursLeft.values.min()
        for item in outlook {
            let fruit = try #require(item["fruit"] as? String)
            #expect(int(item["quantity"]) == stock[fruit])
            #expect(close(double(item["perHour"]), Double(consumed[fruit] ?? 0) / hours))
            if let left = hoursLeft[fruit] {
                #expect(close(double(item["hoursLeft"]), left), "\(fruit) hours left")
            } else {
                #expect(item["hoursLeft"] is NSNull, "\(fruit) not used: no hours left, no division by zero")
            }
            #expect(item["runsOutFirst"] as? Bool == (hoursLeft[fruit] != nil && hoursLeft[fruit] == soonest))
        }

        // The pick lists: to cover 2 days at this rate, and to reach 30 of each.
        let cover = try json(sandbox, ["report", "picklist", "--since", since, "--cover", "2d"])
        let target = try json(sandbox, ["report", "picklist", "--since", since, "--target", "30"])
        let coverWindow = try #require(cover["window"] as? [String: Any])
        let coverMs = 2 * Self.day
        let windowMs = int64(coverWindow["untilMs"]) - int64(coverWindow["sinceMs"])
        for item in try #require(cover["fruits"] as? [[String: Any]]) {
            let fruit = try #require(item["fruit"] as? String)
            let need = (Int64(consumed[fruit] ?? 0) * coverMs + windowMs - 1) / windowMs
            #expect(int64(item["need"]) == need, "cover need of \(fruit)")
            #expect(int(item["have"]) == stock[fruit])
            #expect(int64(item["bring"]) == max(0, need - Int64(stock[fruit] ?? 0)))
        }
        for item in try #require(target["fruits"] as? [[String: Any]]) {
            let fruit = try #require(item["fruit"] as? String)
            #expect(int(item["bring"]) == max(0, 30 - (stock[fruit] ?? 0)))
        }
    }

    @Test(arguments: [UInt64(7), 42, 2026])
    func everyFigureEqualsARecountFromTheEvents(seed: UInt64) throws {
        let sandbox = try JuiceSandbox()
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        // About five weeks of history ending a few hours ago.
        let last = try ReportHistory.write(to: sandbox.storePath, seed: seed, changes: 300, start: now - 36 * Self.day, maximumStep: 5 * Self.hour)
        #expect(last < now + Self.day)
        let tenDaysAgo = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: Double(now - 10 * Self.day) / 1000)).prefix(10)
        try check(sandbox, since: "30d", by: nil)
        try check(sandbox, since: "7d", by: "hour")
        try check(sandbox, since: "2w", by: "week")
        try check(sandbox, since: String(tenDaysAgo), by: "day")
        // More orders after the projection was folded: it catches up, figures still match.
        try ReportHistory.write(to: sandbox.storePath, seed: seed + 1, changes: 60, start: max(last, now - 2 * Self.day), maximumStep: 20 * 60_000)
        try check(sandbox, since: "24h", by: nil)
        try check(sandbox, since: "60d", by: "day")
    }
}
