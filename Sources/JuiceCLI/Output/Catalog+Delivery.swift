#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import JuiceMakerCore
import JuiceMakerPluginKit
import JuicePrimitives

/// The words of `juice deliver`, `juice subscribers retry` and the durable columns of
/// `juice subscribers`.
extension Catalog {
    enum Delivery {
        static let noDurableSubscribers = T(
            "No durable subscribers (webhook, command) are enabled in the config.",
            ko: "설정에 켜진 내구성 구독자(webhook, command)가 없습니다.")

        static func following(_ names: [String]) -> T {
            let list = names.map { echo($0) }.joined(separator: ", ")
            return T("Delivering to \(list) as events arrive. Ctrl-C stops.", ko: "\(list)에 이벤트가 오는 대로 전달합니다. Ctrl-C로 멈춥니다.")
        }

        static func caughtUp(_ name: String, delivered: Int, deadLettered: Int) -> T {
            let name = echo(name)
            guard deadLettered > 0 else {
                return T("\(name): \(delivered) delivered; caught up.", ko: "\(name): \(delivered)개 전달, 모두 따라잡았습니다.")
            }
            return T(
                "\(name): \(delivered) delivered, \(deadLettered) given up (see `juice subscribers`); caught up.",
                ko: "\(name): \(delivered)개 전달, \(deadLettered)개 포기 (`juice subscribers` 참고), 모두 따라잡았습니다.")
        }

        static func waiting(_ name: String, delivered: Int, until: Double) -> T {
            let name = echo(name)
            let time = clock(until)
            return T(
                "\(name): \(delivered) delivered; the next event failed and is retried at \(time) (or run `juice deliver` again).",
                ko: "\(name): \(delivered)개 전달, 다음 이벤트가 실패해 \(time)에 다시 시도합니다 (또는 `juice deliver`를 다시 실행).")
        }

        /// A subscriber whose oldest waiting event failed, said by the command that left
        /// its events to a background run (which has no terminal to say it on).
        static func failing(_ name: String, waiting: Int64, retry: DeliveryRetryState) -> T {
            let (command, name, reason) = (echo(ShellWord.quoted(name)), echo(name), escape(retry.lastError))
            if retry.disabled {
                return T(
                    "\(name): delivery is stopped (\(reason)); \(EnglishCount.of(waiting, "event")) \(EnglishCount.choose(waiting, "waits", "wait")) in the journal. Fix it, then run `juice subscribers retry \(command)`.",
                    ko: "\(name): 전달이 멈췄습니다(\(reason)). 이벤트 \(waiting)개가 저널에서 기다립니다. 고친 뒤 `juice subscribers retry \(command)`를 실행하세요.")
            }
            let (time, next) = (clock(retry.nextAttemptAt), retry.attempts + 1)
            return T(
                "\(name): delivery is failing (\(reason)); \(EnglishCount.of(waiting, "event")) \(EnglishCount.choose(waiting, "waits", "wait")) in the journal, attempt \(next) at \(time) "
                    + "(`juice subscribers` shows it, `juice deliver` tries now).",
                ko: "\(name): 전달이 실패하고 있습니다(\(reason)). 이벤트 \(waiting)개가 저널에서 기다리며 \(time)에 \(next)번째로 시도합니다 "
                    + "(`juice subscribers`로 확인, `juice deliver`로 지금 시도).")
        }

        /// The change is committed but no background `juice deliver` could be started.
        static func handOffFailed(_ detail: T) -> T {
            T(
                "could not start the background delivery (\(detail.english)); the events wait in the journal: run `juice deliver`.",
                ko: "백그라운드 전달을 시작하지 못했습니다(\(detail.korean)). 이벤트는 저널에 남아 있습니다: `juice deliver`를 실행하세요.")
        }

        static func leftToAnotherProcess(_ name: String) -> T {
            let name = echo(name)
            return T(
                "\(name): another juice process (`juice deliver --follow`?) is delivering its events; left to it.",
                ko: "\(name): 다른 juice 프로세스(`juice deliver --follow`?)가 이벤트를 전달하고 있어 맡겨 둡니다.")
        }

        static func disabled(_ name: String, reason: String) -> T {
            let (command, name, reason) = (echo(ShellWord.quoted(name)), echo(name), escape(reason))
            return T(
                "\(name): stopped: \(reason). Fix it, then run `juice subscribers retry \(command)`.",
                ko: "\(name): 멈춤: \(reason). 고친 뒤 `juice subscribers retry \(command)`를 실행하세요.")
        }

        static func redelivered(_ name: String, count: Int) -> T {
            let name = echo(name)
            return T("\(name): \(EnglishCount.of(count, "dead letter")) delivered.", ko: "\(name): 데드 레터 \(count)개 전달.")
        }

        static func unknownSubscriber(_ name: String) -> T {
            let name = echo(name)
            return T(
                "no enabled subscriber is named '\(name)'; `juice subscribers` lists them",
                ko: "'\(name)'\(called(name, otherwise: "라는")) 켜진 구독자가 없습니다. `juice subscribers`로 목록을 보세요")
        }

        static func lossesAcknowledged(_ name: String, ranges: Int) -> T {
            let name = echo(name)
            return ranges == 0
                ? T("\(name): no lost events to acknowledge", ko: "\(name): 확인할 사라진 이벤트가 없습니다")
                : T(
                    "\(name): \(EnglishCount.of(ranges, "range")) of lost events acknowledged; juice subscribers no longer shows them",
                    ko: "\(name): 사라진 이벤트 구간 \(ranges)개를 확인했습니다. juice subscribers에 더는 나오지 않습니다")
        }

        /// A subscriber's events a store recovery found lost, until acknowledged.
        static func lost(_ lost: LostEvents) -> T {
            let name = echo(lost.subscriber)
            let range = lost.sequences.count == 1 ? "\(lost.sequences.lowerBound)" : "\(lost.sequences.lowerBound)–\(lost.sequences.upperBound)"
            let quoted = echo(ShellWord.quoted(lost.subscriber))
            return T(
                "\(name) lost events \(range) in the store recovery of \(clock(lost.recoveredAt)): they will never be sent; once noted, juice subscribers acknowledge \(quoted)",
                ko:
                    "\(name)은(는) \(clock(lost.recoveredAt))의 저장소 복구에서 이벤트 \(range)을(를) 잃었습니다. 앞으로도 보내지 않습니다. 확인했으면 juice subscribers acknowledge \(quoted)"
            )
        }

        static func lettersOfGoneStream(_ name: String, count: Int) -> T {
            let (shown, quoted) = (echo(name), echo(ShellWord.quoted(name)))
            return T(
                "\(shown): \(EnglishCount.of(count, "dead letter")) \(EnglishCount.choose(count, "belongs", "belong")) to a stream that is gone (deleted, or deleted and created again): the stream no longer holds \(EnglishCount.choose(count, "its event", "their events")); juice subscribers retry \(quoted) --dead-letters says so and keeps \(EnglishCount.choose(count, "it", "them"))",
                ko:
                    "\(shown): 데드 레터 \(count)개는 사라진 스트림(삭제되었거나 삭제 후 다시 만들어진 스트림)의 것입니다. 스트림에 그 이벤트가 더 이상 없습니다. juice subscribers retry \(quoted) --dead-letters는 그렇게 알리고 레터를 남깁니다"
            )
        }

        static func notDurable(_ name: String) -> T {
            let name = echo(name)
            return T(
                "'\(name)' does not deliver durably (only webhook and command subscribers do)",
                ko: "'\(name)'은(는) 내구성 전달을 하지 않습니다 (webhook과 command 구독자만 합니다)")
        }

        /// `juice subscribers` could not read the fleet's consumers.
        static func fleetUnknown(_ why: String) -> T {
            let why = escape(why)
            return T("fleet lag unknown: \(why)", ko: "플릿 지연을 알 수 없습니다: \(why)")
        }

        // `juice subscribers` columns.
        static let cursor = T("CURSOR", ko: "커서")
        static let nextAttempt = T("NEXT ATTEMPT", ko: "다음 시도")
        static let inFlight = T("IN FLIGHT", ko: "동시 전송")
        /// The IN FLIGHT cell: how many deliveries the subscriber keeps out at once, at most.
        static func window(_ window: Int, ordered: Bool) -> T {
            ordered ? T("1 (ordered)", ko: "1 (순서 유지)") : T("up to \(window)", ko: "최대 \(window)")
        }
        /// The STATE of a subscriber its destination stopped, with what stopped it:
        /// `stopped (410 Gone)`, `stopped (NATS refused the credentials)`, ….
        static func stopped(because lastError: String) -> T {
            let lowered = lastError.lowercased()
            if lastError.containsText("410 Gone") { return T("stopped (410 Gone)", ko: "멈춤 (410 Gone)") }
            if lowered.containsText("authorization") || lowered.containsText("check the token") {
                return T("stopped (NATS refused the credentials)", ko: "멈춤 (NATS가 자격 증명을 거절함)")
            }
            if lowered.containsText("stream") && (lowered.containsText("subjects") || lowered.containsText("10065") || lowered.containsText("10058"))
            {
                return T("stopped (NATS stream takes other subjects)", ko: "멈춤 (NATS 스트림의 주제가 다름)")
            }
            let reason = escape(lastError.count <= 40 ? lastError : String(lastError.prefix(40)) + "…")
            return T("stopped (\(reason))", ko: "멈춤 (\(reason))")
        }

        /// Local wall-clock time of a Unix time: `14:05:09`, or with the date when not today.
        static func clock(_ unixTime: Double) -> String {
            // localtime_r (the TZ the process has), not DateFormatter: no ICU.
            func local(_ seconds: time_t) -> tm {
                var seconds = seconds
                var parts = tm()
                localtime_r(&seconds, &parts)
                return parts
            }
            func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
            let time = local(time_t(unixTime.rounded(.down)))
            let today = local(time_t(Date().timeIntervalSince1970))
            let clock = "\(two(time.tm_hour)):\(two(time.tm_min)):\(two(time.tm_sec))"
            if time.tm_year == today.tm_year, time.tm_yday == today.tm_yday { return clock }
            let year = String(Int(time.tm_year) + 1900)
            return String(repeating: "0", count: max(0, 4 - year.count)) + year + "-\(two(time.tm_mon + 1))-\(two(time.tm_mday)) " + clock
        }
    }
}
