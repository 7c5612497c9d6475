#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// RFC 3339 timestamps in UTC with milliseconds (`2026-11-21T04:23:49.123Z`).
public enum RFC3339 {
    /// The first and last instants RFC 3339 can write: its `date-fullyear` is exactly
    /// four digits (section 5.6), so years 0000…9999 only; a date outside is clamped.
    static let writableMilliseconds: ClosedRange<Double> = -62_167_219_200_000...253_402_300_799_999

    public static func format(_ date: Date) -> String {
        // To the nearest millisecond: a millisecond-precise date (every committed event
        // time) is often a hair below its value once converted to the Unix epoch.
        let exact = (date.timeIntervalSince1970 * 1000).rounded()
        let totalMilliseconds = Int64(exact.isNaN ? 0 : min(max(exact, writableMilliseconds.lowerBound), writableMilliseconds.upperBound))
        let milliseconds = Int(((totalMilliseconds % 1000) + 1000) % 1000)
        let seconds = (totalMilliseconds - Int64(milliseconds)) / 1000
        let days = Int((seconds - ((seconds % 86_400) + 86_400) % 86_400) / 86_400)
        let secondOfDay = Int(((seconds % 86_400) + 86_400) % 86_400)
        let (year, month, day) = civil(fromDays: days)
        func padded(_ n: Int, _ width: Int) -> String {
            let digits = String(n)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        func two(_ n: Int) -> String { padded(n, 2) }
        let millis = padded(milliseconds, 3)
        return
            "\(padded(year, 4))-\(two(month))-\(two(day))T\(two(secondOfDay / 3600)):\(two(secondOfDay / 60 % 60)):\(two(secondOfDay % 60)).\(millis)Z"
    }

    /// Parses `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`.
    public static func parse(_ text: String) -> Date? {
        var text = text
        return text.withUTF8 { parse(utf8: $0) }
    }

    /// `parse` of the UTF-8 text in `bytes`.
    public static func parse(utf8 bytes: UnsafeBufferPointer<UInt8>) -> Date? {
        func number(_ range: Range<Int>) -> Int? {
            guard range.upperBound <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[range] {
                guard byte >= 48, byte <= 57 else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            return value
        }
        guard bytes.count >= 20, bytes[4] == 45, bytes[7] == 45, bytes[10] == 84 || bytes[10] == 116,
            bytes[13] == 58, bytes[16] == 58,
            let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        var index = 19
        var fraction = 0.0
        if index < bytes.count, bytes[index] == 46 {
            index += 1
            var scale = 0.1
            let start = index
            while index < bytes.count, bytes[index] >= 48, bytes[index] <= 57 {
                fraction += Double(bytes[index] - 48) * scale
                scale /= 10
                index += 1
            }
            if index == start { return nil }
        }
        var offsetSeconds = 0
        guard index < bytes.count else { return nil }
        if bytes[index] == 90 || bytes[index] == 122 {
            index += 1
        } else if bytes[index] == 43 || bytes[index] == 45, let hours = number(index + 1..<index + 3),
            index + 3 < bytes.count, bytes[index + 3] == 58, let minutes = number(index + 4..<index + 6),
            // time-numoffset = ("+" / "-") time-hour ":" time-minute, where time-hour
            // is 00-23 and time-minute 00-59 (RFC 3339 section 5.6).
            hours < 24, minutes < 60
        {
            offsetSeconds = (hours * 3600 + minutes * 60) * (bytes[index] == 45 ? -1 : 1)
            index += 6
        } else {
            return nil
        }
        guard index == bytes.count, day <= daysIn(month, of: year) else { return nil }
        let days = self.days(fromCivil: year, month, day)
        let seconds = Int64(days) * 86_400 + Int64(hour * 3600 + minute * 60 + second - offsetSeconds)
        let milliseconds = Int64((fraction * 1000).rounded())
        return Date(timeIntervalSince1970: Double(seconds * 1000 + milliseconds) / 1000)
    }

    /// Days in `month` (1-12) of `year`, proleptic Gregorian (also used by the HTTP-date parser).
    package static func daysIn(_ month: Int, of year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    // Howard Hinnant's days-from-civil algorithms (proleptic Gregorian calendar).
    private static func civil(fromDays z: Int) -> (Int, Int, Int) {
        let z = z + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// Days from 1970-01-01 to `year-month-day` (also used by the HTTP-date parser).
    package static func days(fromCivil year: Int, _ month: Int, _ day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }
}
