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
import JuicePrimitives

/// How `juice report` buckets fruit consumed over time. Days and weeks are UTC; a
/// week starts on Monday.
enum Bucket: String, Sendable, CaseIterable {
    case hour, day, week

    /// The bucket holding hour `hour` (hours since the Unix epoch), as its first hour.
    func start(ofHour hour: Int64) -> Int64 {
        switch self {
        case .hour: return hour
        case .day: return floorDivide(hour, 24) * 24
        case .week:
            // 1970-01-01 was a Thursday: Monday-aligned weeks start 3 days earlier.
            let day = floorDivide(hour, 24)
            return (floorDivide(day + 3, 7) * 7 - 3) * 24
        }
    }

    /// The first hour of the bucket after the one starting at `start`.
    func next(after start: Int64) -> Int64 {
        switch self {
        case .hour: start + 1
        case .day: start + 24
        case .week: start + 24 * 7
        }
    }
}

func floorDivide(_ value: Int64, _ divisor: Int64) -> Int64 {
    let quotient = value / divisor
    return value % divisor < 0 ? quotient - 1 : quotient
}

/// A length of time written `12h`, `7d` or `2w`.
struct ReportDuration: Sendable, Equatable {
    static let hourMilliseconds: Int64 = 3_600_000
    /// The longest accepted: 3650 days.
    static let maximumHours: Int64 = 3650 * 24

    let hours: Int64
    /// As the person wrote it (`7d`), for headings.
    let text: String

    /// `nil` when `text` is not of the shape `<n>h|d|w`; throws when it is but out of range.
    static func parse(_ text: String, option: String) throws(CLIError) -> ReportDuration? {
        guard let unit = text.last, let multiplier = ["h": 1, "d": 24, "w": 168][String(unit)] else { return nil }
        let digits = text.dropLast()
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        guard let number = Int64(digits), number >= 1, number <= maximumHours / Int64(multiplier) else {
            throw CLIError(.badValue, Catalog.Report.durationOutOfRange(option, text))
        }
        return ReportDuration(hours: number * Int64(multiplier), text: text)
    }

    /// `--cover`: a duration only.
    static func cover(_ text: String) throws(CLIError) -> ReportDuration {
        guard let duration = try parse(text, option: "--cover") else {
            throw CLIError(.badValue, Catalog.Report.badDuration("--cover", text))
        }
        return duration
    }
}

/// The hours a report covers: from the start of `firstHour` to `until`.
///
/// `--since 24h` starts at the beginning of the hour that held "24 hours ago", so the
/// window is made of whole hours (what the projection sums) and is at least as long as
/// asked. `--since 2026-11-01` starts at that date's midnight, UTC. The window ends
/// now, or with `--at`, at the end of the hour that holds that time. Rates divide by
/// the window's real length, `until - since`.
struct ReportWindow: Sendable, Equatable {
    let firstHour: Int64
    let lastHour: Int64
    /// Epoch milliseconds: the window's start (an hour boundary) and end (now, or an hour boundary).
    let sinceMilliseconds: Int64
    let untilMilliseconds: Int64
    /// How the person wrote the window (`7d`, `2026-11-01`), for headings.
    let label: String
    /// Whether `--since` was a date (`2026-11-01`) rather than a duration.
    let startsAtDate: Bool
    /// The rate's window in a sentence: `at the rate of the last 7d`, `at the rate since 2026-11-01`.
    var rate: LocalizedText { Catalog.Report.rate(label, isDate: startsAtDate) }
    let bucket: Bucket

    var hours: Double { Double(untilMilliseconds - sinceMilliseconds) / Double(ReportDuration.hourMilliseconds) }
    /// The exclusive end of the events counted: the end of the last hour.
    var endMilliseconds: Int64 { (lastHour + 1) * ReportDuration.hourMilliseconds }

    /// The window `--since` and `--at` give (`by`, when the command has `--by`, is read
    /// last), against `now` (epoch ms).
    init(since sinceWord: String?, at atWord: String?, by: Option<Bucket?>?, now: Int64) throws(CLIError) {
        let hour = ReportDuration.hourMilliseconds
        var until = now
        if let text = atWord {
            guard let at = Self.time(text) else { throw CLIError(.badValue, Catalog.Report.badTime("--at", text)) }
            guard at <= now else { throw CLIError(.badValue, Catalog.Report.futureTime("--at", text)) }
            // The end of the hour holding `at`, never later than now.
            let end = (floorDivide(at, hour) + (at % hour == 0 ? 0 : 1)) * hour
            until = min(end, now)
        }
        let sinceText = sinceWord ?? "7d"
        let since: Int64
        if let duration = try ReportDuration.parse(sinceText, option: "--since") {
            since = floorDivide(until - duration.hours * hour, hour) * hour
        } else if Self.isDate(sinceText), let date = Self.time(sinceText) {
            guard date <= now else { throw CLIError(.badValue, Catalog.Report.futureDate("--since", sinceText)) }
            guard date < until else {
                throw CLIError(.badValue, Catalog.Report.sinceAfterAt(sinceText, atWord ?? ""))
            }
            // As long a window as the longest duration: its first day is the earliest date.
            let earliest = (floorDivide(until - ReportDuration.maximumHours * hour - 1, 24 * hour) + 1) * 24 * hour
            guard date >= earliest else {
                throw CLIError(
                    .badValue, Catalog.Report.dateOutOfRange("--since", sinceText, earliest: Self.label(milliseconds: earliest).prefix(10)))
            }
            since = date
        } else {
            throw CLIError(.badValue, Catalog.Report.badWindow("--since", sinceText))
        }
        sinceMilliseconds = since
        untilMilliseconds = until
        firstHour = floorDivide(since, hour)
        lastHour = max(firstHour, floorDivide(until - 1, hour))
        label = sinceText
        startsAtDate = Self.isDate(sinceText)
        if let bucket = try by?.value {
            self.bucket = bucket
        } else {
            let span = lastHour - firstHour + 1
            bucket = span <= 48 ? .hour : span <= 24 * 62 ? .day : .week
        }
    }

    /// The first hour of every bucket in the window, oldest first.
    var bucketStarts: [Int64] {
        var starts: [Int64] = []
        var start = bucket.start(ofHour: firstHour)
        while start <= lastHour {
            starts.append(start)
            start = bucket.next(after: start)
        }
        return starts
    }

    private static func isDate(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        return bytes.count == 10 && bytes[4] == 45 && bytes[7] == 45
            && bytes.enumerated().allSatisfy { $0.offset == 4 || $0.offset == 7 || (48...57).contains($0.element) }
    }

    /// `2026-11-01` (midnight UTC) or an RFC 3339 time, as epoch milliseconds; nil when
    /// it is neither or names no real day (`2026-02-30`).
    static func time(_ text: String) -> Int64? {
        let full = isDate(text) ? text + "T00:00:00Z" : text
        guard let date = RFC3339.parse(full) else { return nil }
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded())
        if isDate(text), !RFC3339.format(date).hasPrefix(text) { return nil }
        return milliseconds
    }

    /// `2026-11-21 09:00`, UTC, for headings and period labels.
    static func label(hour: Int64, bucket: Bucket = .hour) -> String {
        let text = RFC3339.format(Date(timeIntervalSince1970: Double(hour) * 3600))
        let date = String(text.prefix(10))
        return bucket == .hour ? date + " " + text.dropFirst(11).prefix(5) : date
    }

    static func label(milliseconds: Int64) -> String {
        let text = RFC3339.format(Date(timeIntervalSince1970: Double(milliseconds) / 1000))
        return String(text.prefix(10)) + " " + text.dropFirst(11).prefix(5)
    }
}
