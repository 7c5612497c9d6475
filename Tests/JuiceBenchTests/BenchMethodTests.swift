import JuiceTestSupport
import Testing

@testable import JuiceBench

/// `juice-bench cli` runs each group of compared programs in every order equally often,
/// so that no program gains from its place (the A/A control reads 1.00 on average).
@Suite(.tags(.unit)) struct GroupOrderTests {
    @Test(arguments: [1, 2, 3, 4])
    func everyOrderOnce(size: Int) {
        let group = Array(0..<size)
        let orders = CLIBench.permutations(group)
        #expect(orders.count == (1...size).reduce(1, *))
        #expect(Set(orders).count == orders.count)
        #expect(orders.allSatisfy { $0.sorted() == group })
    }

    /// Over a whole number of cycles, each program is in each place, and right after
    /// each of the others, equally often.
    @Test(arguments: [2, 3])
    func placesAndPredecessorsBalance(size: Int) {
        let group = Array(0..<size)
        let rounds = CLIBench.roundedToOrders(21)
        var places: [[Int]: Int] = [:]
        var after: [[Int]: Int] = [:]
        for round in 0..<rounds {
            let order = CLIBench.order(group, round: round)
            #expect(order.sorted() == group)
            for (place, program) in order.enumerated() { places[[program, place], default: 0] += 1 }
            for (first, second) in zip(order, order.dropFirst()) { after[[first, second], default: 0] += 1 }
        }
        #expect(places.count == size * size)
        #expect(Set(places.values).count == 1)
        #expect(after.count == size * (size - 1))
        #expect(Set(after.values).count == 1)
    }

    @Test func roundsAreAWholeNumberOfCycles() {
        for asked in 1...50 {
            let rounds = CLIBench.roundedToOrders(asked)
            #expect(rounds >= asked && rounds < asked + 6 && rounds % 6 == 0)
        }
    }
}

/// `juice-bench start-order` reads callgrind's compressed profile format.
@Suite(.tags(.unit)) struct StartOrderReaderTests {
    private let juice = "/tmp/run/juice"

    @Test func namesOfTheObjectOnlyWithCompressedIDs() {
        let profile = """
            version: 1
            creator: callgrind-3.19.0
            events: Ir
            ob=(1) /usr/lib/x86_64-linux-gnu/libc.so.6
            fl=(1) ???
            fn=(1) write
            0 10
            ob=(2) /tmp/run/juice
            fl=(2) ???
            fn=(2) main
            0 5
            cob=(1)
            cfi=(1)
            cfn=(1)
            calls=1 0
            0 10
            cob=(2)
            cfn=(3) swift_once
            calls=1 0
            0 7
            fn=(3)
            0 7
            fn=(4) swift_retain'2
            0 1
            fn=(5) 0x0000000000001234
            0 1
            ob=(1)
            fn=(6) memcpy
            0 3
            ob=(2)
            fn=(2)
            0 1
            fn=(7) $s8JuiceCLI6RunnerV5startAC5StartOyF
            0 4
            """
        #expect(
            StartOrder.functions(in: profile, object: juice) == [
                "main", "swift_once", "swift_retain", "$s8JuiceCLI6RunnerV5startAC5StartOyF",
            ])
    }

    @Test func uncompressedNamesToo() {
        let profile = """
            ob=/tmp/run/juice
            fn=main
            0 1
            fn=exit
            0 1
            ob=/tmp/other/juice
            fn=elsewhere
            0 1
            """
        #expect(StartOrder.functions(in: profile, object: juice) == ["main", "exit"])
    }

    @Test func nothingWithoutTheObject() {
        #expect(StartOrder.functions(in: "ob=(1) /usr/lib/libc.so.6\nfn=(1) write\n0 1\n", object: juice).isEmpty)
        #expect(StartOrder.functions(in: "", object: juice).isEmpty)
    }
}
