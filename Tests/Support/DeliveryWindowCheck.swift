/// The events a windowed subscriber sent further ahead than its window allows: given
/// the sequences a receiver saw, in arrival order, each whose first arrival came while
/// an event `window` or more places before it (among the events it received) had not
/// arrived yet. A runner with `window` in flight moves its cursor over the acknowledged
/// prefix only, and an event is acknowledged after it arrived, so this is empty.
package func windowViolations(_ arrivals: [Int64], window: Int) -> [Int64] {
    let ranks = Dictionary(uniqueKeysWithValues: Set(arrivals).sorted().enumerated().map { ($1, $0) })
    var arrived = Set<Int>()
    // Every rank below `prefix` has arrived.
    var prefix = 0
    var violations: [Int64] = []
    for sequence in arrivals {
        guard let rank = ranks[sequence], arrived.insert(rank).inserted else { continue }
        if rank - prefix >= window { violations.append(sequence) }
        while arrived.contains(prefix) { prefix += 1 }
    }
    return violations
}
