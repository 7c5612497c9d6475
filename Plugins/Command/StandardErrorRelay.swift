#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import JuiceMakerCore
import JuiceMakerPluginKit
import JuicePrimitives

/// What a command program writes to stderr, reported line by line and bounded, so a
/// program that floods its stderr cannot flood the person's terminal or log.
///
/// - Each line is echoed: control characters escaped, cut at `TerminalText.echoLimit`.
/// - At most `burst` lines at once, then one more per `refill` of time: the lines
///   beyond that are counted, not shown, and one line says how many were cut (and
///   their bytes) before the next line shown, or when the program's stderr ends.
/// - A line longer than `longestLine` bytes counts as one line, its rest dropped;
///   nothing buffers more than that.
struct StandardErrorRelay: Sendable {
    static let burst = 20
    static let refill = Duration.seconds(1)
    static let longestLine = 65_536

    let program: String
    let report: @Sendable (PluginMessage) -> Void

    /// Reads `descriptor` until its end, reporting as above, then closes it.
    func run(_ descriptor: Int32) {
        var pending: [UInt8] = []
        var skippingRest = false
        var budget = Budget()
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            if count <= 0 { break }
            var start = 0
            while start < count {
                guard let newline = chunk[start..<count].firstIndex(of: 10) else {
                    if !skippingRest { pending += chunk[start..<count] }
                    if pending.count > Self.longestLine {
                        offer(pending, budget: &budget)
                        pending.removeAll()
                        skippingRest = true
                    }
                    break
                }
                if skippingRest {
                    budget.cutBytes += newline - start + 1
                    skippingRest = false
                } else {
                    offer(pending + chunk[start..<newline], budget: &budget)
                }
                pending.removeAll()
                start = newline + 1
            }
        }
        if !pending.isEmpty { offer(pending, budget: &budget) }
        summarise(&budget)
        close(descriptor)
    }

    /// Lines that may still be shown now, and what was cut since the last one shown.
    private struct Budget {
        var lines = Double(StandardErrorRelay.burst)
        var filled = ContinuousClock.now
        var cutLines = 0
        var cutBytes = 0
    }

    private func offer(_ line: [UInt8], budget: inout Budget) {
        let now = ContinuousClock.now
        let earned = (now - budget.filled) / Self.refill
        budget.lines = min(Double(Self.burst), budget.lines + earned)
        budget.filled = now
        guard budget.lines >= 1 else {
            budget.cutLines += 1
            budget.cutBytes += line.count + 1
            return
        }
        budget.lines -= 1
        summarise(&budget)
        report(PluginMessage(untranslated: "\(program): \(TerminalText.echoed(String(decoding: line, as: UTF8.self)))"))
    }

    private func summarise(_ budget: inout Budget) {
        guard budget.cutLines > 0 else { return }
        let (lines, bytes) = (budget.cutLines, budget.cutBytes)
        budget.cutLines = 0
        budget.cutBytes = 0
        report(
            PluginMessage(
                english: "\(program): \(EnglishCount.of(lines, "more stderr line", plural: "more stderr lines")) "
                    + "(\(EnglishCount.of(bytes, "byte"))) not shown",
                korean: "\(program): stderr \(lines)줄(\(bytes)바이트)을 더 보여 주지 않았습니다"))
    }
}
