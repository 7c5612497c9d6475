#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import JuiceMakerPluginKit
import JuiceMakerCore

/// The words of `juice fleet`.
extension Catalog {
    enum Fleet {
        static let noURL = T(
            "no NATS server given: pass --nats nats://host:4222 or set fleet.url in the config.",
            ko: "NATS 서버가 없습니다. --nats nats://host:4222를 주거나 설정의 fleet.url을 정하세요.")

        /// A subscriber whose window is wider than what its consumer may have out.
        static func windowAboveMaxAckPending(_ name: String, window: Int, maxAckPending: Int) -> T {
            let shown = TerminalText.escaped(name)
            return T(
                "subscriber \(shown): maxInFlight \(window) is above fleet.maxAckPending \(maxAckPending), so the stream would "
                    + "never let it fill its window; raise fleet.maxAckPending to at least \(window) or lower maxInFlight.",
                ko: "구독자 \(shown): maxInFlight \(window)이(가) fleet.maxAckPending \(maxAckPending)보다 커서 스트림이 창을 "
                    + "채우게 두지 않습니다. fleet.maxAckPending을 \(window) 이상으로 올리거나 maxInFlight를 낮추세요.")
        }

        /// A fleet command's connection was lost, or is back (`line` says which; escaped here).
        static func connection(_ line: String) -> T {
            let shown = TerminalText.escaped(line)
            return T(shown, ko: shown)
        }

        static let noMachines = T(
            "No machine has published stock to the stream yet.", ko: "아직 스트림에 재고를 발행한 기계가 없습니다.")

        /// A stream message a fleet reader skipped: `line` says its sequence, subject and why (escaped here).
        static func skipped(_ line: String) -> T {
            let shown = TerminalText.escaped(line)
            return T("skipped \(shown)", ko: "건너뜀: \(shown)")
        }

        static let machineHeading = T("Machine", ko: "기계")
        static let updatedHeading = T("Updated", ko: "갱신")

        static func badMachine(_ name: String) -> T {
            T(
                "--machine \"\(name)\": expected letters, digits, - and _ only.",
                ko: "--machine \"\(name)\": 글자, 숫자, -, _만 쓸 수 있습니다.")
        }

        static func badDuration(_ text: String) -> T {
            T(
                "--since \"\(text)\": expected a duration (30s, 10m, 2h, 1d) or all.",
                ko: "--since \"\(text)\": 기간(30s, 10m, 2h, 1d)이나 all이어야 합니다.")
        }

        /// A machine's clock ahead of the stream's: `(clock 2h ahead)`.
        static func clockAhead(_ seconds: TimeInterval) -> T {
            let amount = span(seconds)
            return T("(clock \(amount.english) ahead)", ko: "(시계가 \(amount.korean) 빠름)")
        }

        /// The stream's limits, as a note under `fleet stock`'s table; `nil` without limits.
        static func retention(_ stream: StreamLimits) -> T? {
            var english: [String] = []
            var korean: [String] = []
            if let age = stream.maxAge {
                let amount = span(age)
                english.append("for \(amount.english)")
                korean.append("\(amount.korean) 동안")
            }
            if let bytes = stream.maxBytes {
                english.append("up to \(EnglishCount.of(bytes, "byte"))")
                korean.append("최대 \(bytes)바이트")
            }
            guard !english.isEmpty else { return nil }
            return T(
                "\(stream.name) keeps messages \(english.joined(separator: ", ")): a machine with no stock change within that is not listed, "
                    + "and a fruit it did not change shows -.",
                ko: "\(stream.name)은(는) 메시지를 \(korean.joined(separator: ", ")) 보관합니다. 그 안에 재고 변화가 없는 기계는 나오지 않고, "
                    + "바뀌지 않은 과일은 -로 보입니다.")
        }

        /// The stream's limits `retention` shows.
        struct StreamLimits {
            let name: String
            let maxAge: Double?
            let maxBytes: Int64?
        }

        /// `45s`, `12m`, `3h`, `2d`.
        private static func span(_ seconds: TimeInterval) -> T {
            let value = max(0, seconds)
            let (count, unit, koUnit): (Int, String, String) =
                switch value {
                case ..<60: (Int(value), "s", "초")
                case ..<3600: (Int(value / 60), "m", "분")
                case ..<86400: (Int(value / 3600), "h", "시간")
                default: (Int(value / 86400), "d", "일")
                }
            return T("\(count)\(unit)", ko: "\(count)\(koUnit)")
        }

        /// How long ago: `4s ago`, `12m ago`, `3h ago`, `2d ago`.
        static func age(_ seconds: TimeInterval) -> T {
            let amount = span(seconds)
            return T("\(amount.english) ago", ko: "\(amount.korean) 전")
        }
    }
}
