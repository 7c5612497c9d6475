import Dispatch
import Foundation
import JuiceTestSupport
import Testing
import Locking

/// `TimeSpan`, the one conversion of a `Duration` for C and Dispatch: exact for
/// ordinary spans, zero for negative ones, saturated (never a trap) for huge ones.
@Suite("TimeSpan", .tags(.unit))
struct TimeSpanTests {
    @Test("ordinary spans convert exactly")
    func ordinarySpans() {
        let span = TimeSpan(.milliseconds(1_500))
        #expect(span.seconds == 1)
        #expect(span.nanoseconds == 500_000_000)
        #expect(span.totalNanoseconds == 1_500_000_000)
        #expect(span.millisecondsRoundedUp == 1_500)
        #expect(span.totalSeconds == 1.5)
        #expect(span.relativeTimespec.tv_sec == 1)
        #expect(span.relativeTimespec.tv_nsec == 500_000_000)
        // A part of a millisecond counts as one: a poll never wakes before its time.
        #expect(TimeSpan(.nanoseconds(1)).millisecondsRoundedUp == 1)
        #expect(TimeSpan(.microseconds(1_000)).millisecondsRoundedUp == 1)
        #expect(TimeSpan(timeval(tv_sec: 2, tv_usec: 250_000)).totalSeconds == 2.25)
    }

    @Test("zero and negative spans are zero")
    func negativeSpans() {
        for duration in [Duration.zero, .nanoseconds(-1), .seconds(-3), .seconds(Int64.min)] {
            let span = TimeSpan(duration)
            #expect(span == TimeSpan(.zero))
            #expect(span.totalNanoseconds == 0)
            #expect(span.millisecondsRoundedUp == 0)
            #expect(span.totalSeconds == 0)
        }
        #expect(TimeSpan(timeval(tv_sec: -1, tv_usec: 500_000)) == TimeSpan(.zero))
    }

    @Test(
        "huge spans saturate rather than trap",
        arguments: [
            Duration.seconds(Int64.max),
            .seconds(Int64.max) + .milliseconds(900),
            .seconds(Int64.max) * 4,
            .seconds(Int64.max / 1_000) + .nanoseconds(999_999_999),
        ])
    func hugeSpansSaturate(duration: Duration) {
        let span = TimeSpan(duration)
        #expect(span.totalNanoseconds == .max)
        #expect(span.millisecondsRoundedUp == .max)
        #expect(span.totalSeconds.isFinite && span.totalSeconds > 9e15)
        #expect(span.nanoseconds >= 0 && span.nanoseconds < 1_000_000_000)

        // The absolute deadlines a wait computes from it.
        var now = timespec(tv_sec: 1_000_000, tv_nsec: 999_999_999)
        let deadline = span.deadline(after: now)
        #expect(deadline.tv_sec >= span.seconds)
        #expect(deadline.tv_nsec >= 0 && deadline.tv_nsec < 1_000_000_000)
        now = timespec(tv_sec: .max, tv_nsec: 999_999_999)
        #expect(span.deadline(after: now).tv_sec == .max)
        #expect(span.deadline(after: DispatchTime.now()) == .distantFuture)
    }

    @Test("the furthest deadline a caller can write is a wait, not a trap")
    func conditionWaitsWithHugeDeadlines() {
        for deadline in [ContinuousClock.now + .seconds(Int64.max), ContinuousClock.now + .seconds(Int64.max) * 4] {
            let value = LockedCondition(0)
            let waiting = DispatchSemaphore(value: 0)
            let done = DispatchSemaphore(value: 0)
            let result = Locked(false)
            Thread {
                // The predicate runs under the lock; the change below needs that lock,
                // which only the timed wait itself gives up: so the wait is under way,
                // with the huge deadline, when the value changes.
                let ready = value.wait(until: deadline) { current in
                    if current == 0 { waiting.signal() }
                    return current == 1
                }
                result.withLock { $0 = ready }
                done.signal()
            }.start()
            waiting.wait()
            value.change { $0 = 1 }
            #expect(done.wait(timeout: .now() + 60) == .success)
            #expect(result.withLock { $0 })
        }
    }
}
