import JuiceMakerCore

/// What `juice report` and `juice report picklist` say: headings, the lines of
/// the report, and its errors (their help is in their declarations).
extension Catalog {
    enum Report {
        // Headings
        static func title(_ from: String, _ until: String, _ window: String, _ by: Bucket) -> T {
            T(
                "Report \(from) → \(until) UTC (\(window), by \(by.rawValue))",
                ko: "보고서 \(from) → \(until) UTC (\(window), \(bucketKorean(by))별)")
        }
        static let sales = T("Sales per juice", ko: "쥬스별 판매")
        static let lostSales = T("Lost sales (failed orders)", ko: "놓친 판매 (실패한 주문)")
        static func consumed(_ by: Bucket) -> T {
            T("Fruit consumed per \(by.rawValue)", ko: "\(bucketKorean(by))별 쓴 과일")
        }
        /// The window in a sentence: `the last 24h`, or `since 2026-11-01` for a date.
        static func span(_ window: String, isDate: Bool) -> T {
            isDate ? T("since \(window)", ko: "\(window) 이후") : T("the last \(window)", ko: "최근 \(window)")
        }
        /// `at the rate of the last 24h`, `at the rate since 2026-11-01`.
        static func rate(_ window: String, isDate: Bool) -> T {
            let span = span(window, isDate: isDate)
            return T("at the rate \(isDate ? "" : "of ")\(span.english)", ko: "\(span.korean) 속도로")
        }
        static func stockNow(_ rate: T) -> T {
            T("Stock now, and how long it lasts \(rate.english)", ko: "지금 재고와, \(rate.korean) 얼마나 갈지")
        }
        static let total = T("total", ko: "합계")

        // Lines
        static func cups(_ cups: Int, share: Double) -> T {
            let percent = formatPercent(share)
            return T("\(EnglishCount.of(cups, "cup"))  \(percent)", ko: "\(cups)잔  \(percent)")
        }
        static func totalCups(_ cups: Int, orders: Int) -> T {
            T(
                "\(EnglishCount.of(cups, "cup")) in \(EnglishCount.of(orders, "order"))",
                ko: "주문 \(orders)건, \(cups)잔")
        }
        static func lost(orders: Int, cups: Int) -> T {
            T(
                "\(orders) failed \(EnglishCount.choose(orders, "order", "orders")), \(EnglishCount.of(cups, "cup"))",
                ko: "실패 \(orders)건, \(cups)잔")
        }
        static func short(_ fruit: Fruit, missing: Int, orders: Int) -> T {
            T(
                "short of \(fruit.englishName): \(missing) in \(EnglishCount.of(orders, "order"))",
                ko: "\(fruit.koreanName) 부족: 주문 \(orders)건에 \(missing)개")
        }
        static let noLostSales = T("No order failed in this window.", ko: "이 기간에 실패한 주문이 없습니다.")
        static let noConsumption = T("No fruit was used in this window.", ko: "이 기간에 쓴 과일이 없습니다.")
        static func left(_ quantity: Int) -> T {
            T("\(quantity) left", ko: "\(quantity)개 남음")
        }
        static let outNow = T("out of stock now", ko: "지금 없음")
        static let underAnHour = T("less than an hour", ko: "1시간 안에 떨어짐")
        static func aboutHours(_ hours: Int) -> T {
            T("about \(EnglishCount.of(hours, "hour"))", ko: "약 \(hours)시간")
        }
        static func aboutDays(_ days: Int) -> T {
            T("about \(EnglishCount.of(days, "day"))", ko: "약 \(days)일")
        }
        static func notUsed(_ window: String, isDate: Bool) -> T {
            let span = span(window, isDate: isDate)
            return T(
                "not used \(isDate ? "" : "in ")\(span.english): lasts at least that long",
                ko: "\(span.korean) 동안 쓰지 않음: 적어도 그만큼은 갑니다")
        }
        static let runsOutFirst = T("runs out first", ko: "가장 먼저 떨어짐")
        static func perHour(_ rate: String) -> T { T("\(rate)/h", ko: "시간당 \(rate)") }
        static func unknownEvents(_ count: Int) -> T {
            T(
                "* \(EnglishCount.of(count, "event")) of a type this version does not know (from a newer juice) \(EnglishCount.choose(count, "was", "were")) skipped.",
                ko: "* 이 버전이 모르는 종류의 이벤트 \(count)개(새 버전의 juice가 쓴 것)를 건너뛰었습니다.")
        }
        static let emptyJournal = T(
            "Nothing to report yet: the journal is empty. Sales show here once juice is ordered ('juice order mango-kiwi').",
            ko: "아직 보고할 것이 없습니다. 기록이 비어 있습니다. 쥬스를 주문하면('juice order mango-kiwi') 여기에 판매가 나옵니다.")
        static func quietWindow(_ from: String) -> T {
            T(
                "No orders since \(from) UTC; try a longer window, e.g. --since 30d.",
                ko: "\(from) UTC 이후 주문이 없습니다. 더 긴 기간을 보세요. 예: --since 30d.")
        }
        static func svgWritten(_ path: String) -> T {
            let path = echo(path: path)
            return T("Charts written to \(path).", ko: "차트를 \(path)에 썼습니다.")
        }

        // Pick list
        static func picklistCover(_ cover: String, _ rate: T) -> T {
            T(
                "Pick list: enough for the next \(cover) \(rate.english)",
                ko: "가져올 목록: \(rate.korean) 다음 \(cover) 동안 쓸 만큼")
        }
        static func picklistTarget(_ target: Int) -> T {
            T("Pick list: bring each fruit up to \(target)", ko: "가져올 목록: 과일마다 \(target)개까지")
        }
        static func bring(_ amount: Int, have: Int) -> T {
            T("bring \(amount)  (have \(have))", ko: "\(amount)개 가져오기  (지금 \(have)개)")
        }
        static let nothingToBring = T("Nothing to bring: the stock already covers it.", ko: "가져올 것이 없습니다. 지금 재고로 충분합니다.")

        // Errors (exit 65 unless said otherwise)
        static func badWindow(_ option: String, _ value: String) -> T {
            let value = echo(value)
            return T(
                "'\(option) \(value)' is not a duration or a date; write e.g. 24h, 7d, 2w or 2026-11-01.",
                ko: "'\(option) \(value)'은(는) 기간이나 날짜가 아닙니다. 예: 24h, 7d, 2w, 2026-11-01.")
        }
        static func badDuration(_ option: String, _ value: String) -> T {
            let value = echo(value)
            return T(
                "'\(option) \(value)' is not a duration; write a whole number and h, d or w, e.g. 12h, 2d, 1w.",
                ko: "'\(option) \(value)'은(는) 기간이 아닙니다. 정수와 h, d, w를 쓰세요. 예: 12h, 2d, 1w.")
        }
        static func durationOutOfRange(_ option: String, _ value: String) -> T {
            let value = echo(value)
            return T(
                "'\(option) \(value)' is out of range; use from 1h up to 3650d.",
                ko: "'\(option) \(value)'은(는) 범위를 벗어났습니다. 1h부터 3650d까지 쓰세요.")
        }
        static func futureDate(_ option: String, _ value: String) -> T {
            let value = echo(value)
            return T(
                "'\(option) \(value)' is in the future; give a date up to today (UTC).",
                ko: "'\(option) \(value)'은(는) 미래입니다. 오늘(UTC)까지의 날짜를 쓰세요.")
        }
        static func futureTime(_ option: String, _ value: String) -> T {
            let value = echo(value)
            return T(
                "'\(option) \(value)' is in the future; give a time up to now.",
                ko: "'\(option) \(value)'은(는) 미래입니다. 지금까지의 시각을 쓰세요.")
        }

        static func dateOutOfRange(_ option: String, _ value: String, earliest: Substring) -> T {
            let value = echo(value)
            return T(
                "'\(option) \(value)' is out of range; give a date from \(earliest) (3650 days back) up to today (UTC).",
                ko: "'\(option) \(value)'은(는) 범위를 벗어났습니다. \(earliest)(3650일 전)부터 오늘(UTC)까지의 날짜를 쓰세요.")
        }

        static func badTime(_ option: String, _ value: String) -> T {
            let value = echo(value)
            return T(
                "'\(option) \(value)' is not a time; write e.g. 2026-11-21T09:00:00Z or 2026-11-21.",
                ko: "'\(option) \(value)'은(는) 시각이 아닙니다. 예: 2026-11-21T09:00:00Z 또는 2026-11-21.")
        }
        static func sinceAfterAt(_ since: String, _ at: String) -> T {
            let (since, at) = (echo(since), echo(at))
            return T(
                "'--since \(since)' starts after '--at \(at)'; give a --since before --at.",
                ko: "'--since \(since)'가 '--at \(at)'보다 늦습니다. --at보다 이른 --since를 쓰세요.")
        }
        static func badBucket(_ value: String) -> T {
            let value = echo(value)
            return T(
                "'--by \(value)' is not a period; use hour, day or week.",
                ko: "'--by \(value)'은(는) 단위가 아닙니다. hour, day, week 중 하나를 쓰세요.")
        }
        static func targetOutOfRange(_ value: Int) -> T {
            T("'--target' must be from 1 to 1,000,000, found \(value).", ko: "'--target'은 1부터 1,000,000까지여야 합니다. 받은 값: \(value).")
        }
        static let coverAndTarget = T(
            "'--cover' and '--target' ask for two different lists; give one of them.",
            ko: "'--cover'와 '--target'은 서로 다른 목록입니다. 하나만 쓰세요.")
        static let svgAndJSON = T(
            "'--svg -' and '--json' both print on standard output; give --svg a file, or drop --json.",
            ko: "'--svg -'와 '--json'은 둘 다 표준 출력에 씁니다. --svg에 파일을 주거나 --json을 빼세요.")

        static func svgUnwritable(_ path: String, _ reason: String) -> T {
            let (path, reason) = (echo(path: path), escape(reason))
            return T(
                "cannot write the SVG to \(path) (\(reason)); choose a path in a directory you can write.",
                ko: "SVG를 \(path)에 쓸 수 없습니다 (\(reason)). 쓸 수 있는 디렉터리의 경로를 고르세요.")
        }

        static func bucketKorean(_ bucket: Bucket) -> String {
            switch bucket {
            case .hour: "시간"
            case .day: "일"
            case .week: "주"
            }
        }

        /// `40.0%`: one decimal, so shares of a small total stay distinct.
        static func formatPercent(_ share: Double) -> String {
            let tenths = Int((share * 1000).rounded())
            return "\(tenths / 10).\(tenths % 10)%"
        }
    }
}
