import JuiceMakerCore

/// The words for journal rows this version cannot read (`juice events`, `juice watch`).
extension Catalog {
    enum Journal {
        /// One line per unreadable row; `reason` is escaped by the caller's `TerminalText`.
        static func unreadable(_ sequence: Int64, reason: String) -> T {
            T(
                "event \(sequence) could not be read (\(reason)); it is left out, the other events are shown.",
                ko: "이벤트 \(sequence)을(를) 읽을 수 없어(\(reason)) 빼고 나머지 이벤트를 보여 줍니다.")
        }

        /// `juice watch` goes on after it.
        static func skipped(_ sequence: Int64, reason: String) -> T {
            T(
                "event \(sequence) could not be read (\(reason)); skipped, watching goes on.",
                ko: "이벤트 \(sequence)을(를) 읽을 수 없어(\(reason)) 건너뛰고 계속 지켜봅니다.")
        }
    }
}
