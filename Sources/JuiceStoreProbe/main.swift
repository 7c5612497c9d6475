import Foundation
import JuiceMakerCore
import SQLiteStore
import Locking

// JuiceStoreProbe: a process the store tests start many at once.
//
//   JuiceStoreProbe orders --store PATH --count N [--seed S] [--durability full|normal]
//       N random orders and restocks; prints "made <event id>" for every juiceMade
//       event it committed, then "summary made=… failed=… restocked=…".
//   JuiceStoreProbe loop --store PATH [--seed S]
//       orders and restocks until killed.
//
// Exit status: 0 done, 1 a store or maker error (printed on stderr), 64 usage.

let usage = "usage: JuiceStoreProbe orders|loop --store PATH [--count N] [--seed S] [--durability full|normal]"

func fail(_ message: String, status: Int32) -> Never {
    FileHandle.standardError.write(Data("JuiceStoreProbe: \(message)\n".utf8))
    exit(status)
}

var options: [String: String] = [:]
let arguments = Array(CommandLine.arguments.dropFirst())
guard let mode = arguments.first, mode == "orders" || mode == "loop" else { fail(usage, status: 64) }
var index = 1
while index < arguments.count {
    guard arguments[index].hasPrefix("--"), index + 1 < arguments.count else { fail(usage, status: 64) }
    options[String(arguments[index].dropFirst(2))] = arguments[index + 1]
    index += 2
}
guard let path = options["store"] else { fail(usage, status: 64) }
guard let durability = Durability(rawValue: options["durability"] ?? "full") else { fail(usage, status: 64) }
let count = mode == "loop" ? Int.max : Int(options["count"] ?? "") ?? 0
var random = ProbeRandom(seed: UInt64(options["seed"] ?? "") ?? UInt64(getpid()))

/// The ids of the juiceMade events this process committed, as the bus heard them.
final class MadeEvents: Sendable {
    let ids = Locked<[EventID]>([])
}

/// Adds fruit; false when the fruit is already full (not a store error; nothing changed).
func restock(_ maker: JuiceMaker, _ amount: Int, of fruit: Fruit) throws(JuiceMakerError) -> Bool {
    do {
        try maker.add(amount, of: fruit)
        return true
    } catch {
        guard case .aboveMaximum = error else { throw error }
        return false
    }
}

do {
    let store = try SQLiteStore(path: path, durability: durability)
    let maker = JuiceMaker(store: store, source: "/juice-store-probe/\(getpid())")
    let made = MadeEvents()
    let subscription = try maker.subscribe("probe", kinds: [.juiceMade]) { envelope in
        made.ids.withLock { $0.append(envelope.id) }
    }
    var orders = (made: 0, failed: 0)
    var restocked = 0
    var done = 0
    while done < count {
        done += 1
        if Int.random(in: 0..<10, using: &random) < 7 {
            let juice = Juice.allCases.randomElement(using: &random) ?? .banana
            switch try maker.make(juice, count: Int.random(in: 1...2, using: &random)) {
            case .made: orders.made += 1
            case .insufficient: orders.failed += 1
            }
        } else {
            let fruit = Fruit.allCases.randomElement(using: &random) ?? .banana
            if try restock(maker, Int.random(in: 1...15, using: &random), of: fruit) { restocked += 1 }
        }
    }
    subscription.cancel()
    let ids = made.ids.withLock { $0 }
    guard ids.count == orders.made else {
        fail("made \(orders.made) orders but heard \(ids.count) juiceMade events", status: 1)
    }
    print(ids.map { "made \($0)" }.joined(separator: "\n"))
    print("summary made=\(orders.made) failed=\(orders.failed) restocked=\(restocked)")
} catch {
    fail("\(error)", status: 1)
}
