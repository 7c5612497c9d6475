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
import JuicePrimitives

/// The `Retry-After` header (RFC 9110, section 10.2.3): `delay-seconds / HTTP-date`.
package enum RetryAfter {
    /// Seconds from `now` that `value` asks for, or `nil` when it is neither form.
    ///
    /// - delay-seconds is `1*DIGIT` (RFC 9110, section 10.2.3): digits only, so `+120`,
    ///   `-1`, `1.5` and ` 1 2` are refused. A number too large for any integer is
    ///   `Double.infinity`; the caller caps it (the webhook at the longest step of
    ///   the retry schedule).
    /// - HTTP-date is any of the three forms of RFC 9110, section 5.6.7; a date in the
    ///   past asks for no wait (0).
    ///
    /// Only optional whitespace around the value (`OWS`: spaces and tabs) is ignored.
    package static func seconds(_ value: String, now: Date) -> Double? {
        var bytes = Substring(value).utf8[...]
        while let first = bytes.first, first == 0x20 || first == 0x09 { bytes.removeFirst() }
        while let last = bytes.last, last == 0x20 || last == 0x09 { bytes.removeLast() }
        guard !bytes.isEmpty else { return nil }
        if bytes.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
            // Overflow-safe: only the magnitude matters once it passes any cap.
            var seconds = 0.0
            for byte in bytes { seconds = seconds * 10 + Double(byte - 0x30) }
            return seconds
        }
        guard let date = HTTPDate.parse(Array(bytes), now: now) else { return nil }
        return max(0, date.timeIntervalSince(now))
    }
}

/// HTTP-date (RFC 9110, section 5.6.7): a recipient must accept all three forms.
///
/// ```
/// IMF-fixdate  Sun, 06 Nov 1994 08:49:37 GMT
/// rfc850-date  Sunday, 06-Nov-94 08:49:37 GMT
/// asctime-date Sun Nov  6 08:49:37 1994
/// ```
/// Names are case-sensitive (`%s"Sun"` in the grammar). Whether the day name matches
/// the date is not checked: the RFC does not ask recipients to, and Go's `time.Parse`
/// (behind `http.ParseTime`) likewise checks the day name's syntax and ignores it.
enum HTTPDate {
    private static let shortDays = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    private static let longDays = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    static func parse(_ bytes: [UInt8], now: Date) -> Date? {
        var scanner = Scanner(bytes: bytes)
        if scanner.word(in: longDays) != nil {
            // rfc850-date: day-name-l "," SP day "-" month "-" 2DIGIT SP time SP "GMT"
            guard scanner.literal(", "), let day = scanner.digits(2), scanner.literal("-"), let month = scanner.month(months),
                scanner.literal("-"), let twoDigitYear = scanner.digits(2), scanner.literal(" "), let time = scanner.time(),
                scanner.literal(" GMT"), scanner.atEnd
            else { return nil }
            return date(year: fullYear(twoDigitYear, now: now), month: month, day: day, time: time)
        }
        guard scanner.word(in: shortDays) != nil else { return nil }
        if scanner.literal(", ") {
            // IMF-fixdate: day SP month SP year SP time SP "GMT"
            guard let day = scanner.digits(2), scanner.literal(" "), let month = scanner.month(months), scanner.literal(" "),
                let year = scanner.digits(4), scanner.literal(" "), let time = scanner.time(), scanner.literal(" GMT"),
                scanner.atEnd
            else { return nil }
            return date(year: year, month: month, day: day, time: time)
        }
        // asctime-date: day-name SP month SP ( 2DIGIT / ( SP DIGIT ) ) SP time SP year
        guard scanner.literal(" "), let month = scanner.month(months), scanner.literal(" ") else { return nil }
        let day = scanner.literal(" ") ? scanner.digits(1) : scanner.digits(2)
        guard let day, scanner.literal(" "), let time = scanner.time(), scanner.literal(" "), let year = scanner.digits(4),
            scanner.atEnd
        else { return nil }
        return date(year: year, month: month, day: day, time: time)
    }

    /// RFC 9110, section 5.6.7: a two-digit year that "appears to be more than 50 years
    /// in the future" is "the most recent year in the past that had the same last two
    /// digits". So: the latest year with these last two digits that is at most 50 years
    /// after the current one (compared by year, not to the second).
    static func fullYear(_ twoDigits: Int, now: Date) -> Int {
        let currentYear = Int(RFC3339.format(now).prefix(4)) ?? 1970
        let candidate = currentYear - currentYear % 100 + twoDigits
        if candidate > currentYear + 50 { return candidate - 100 }
        if candidate <= currentYear - 50 { return candidate + 100 }
        return candidate
    }

    private static func date(year: Int, month: Int, day: Int, time: (Int, Int, Int)) -> Date? {
        let (hour, minute, second) = time
        // hour 00-23, minute 00-59, second 00-60 (a leap second), a day the month has.
        guard (1...RFC3339.daysIn(month, of: year)).contains(day), hour < 24, minute < 60, second <= 60 else { return nil }
        let days = RFC3339.days(fromCivil: year, month, day)
        return Date(timeIntervalSince1970: Double(days * 86_400 + hour * 3_600 + minute * 60 + second))
    }

    private struct Scanner {
        let bytes: [UInt8]
        var index = 0

        var atEnd: Bool { index == bytes.count }

        mutating func literal(_ text: StaticString) -> Bool {
            let count = text.utf8CodeUnitCount
            guard bytes.count - index >= count else { return false }
            let matches = text.withUTF8Buffer { expected in bytes[index..<index + count].elementsEqual(expected) }
            if matches { index += count }
            return matches
        }

        mutating func word(in words: [String]) -> Int? {
            for (position, word) in words.enumerated() {
                let utf8 = Array(word.utf8)
                if bytes.count - index >= utf8.count, bytes[index..<index + utf8.count].elementsEqual(utf8) {
                    index += utf8.count
                    return position
                }
            }
            return nil
        }

        mutating func month(_ names: [String]) -> Int? { word(in: names).map { $0 + 1 } }

        mutating func digits(_ count: Int) -> Int? {
            guard bytes.count - index >= count else { return nil }
            var value = 0
            for byte in bytes[index..<index + count] {
                guard byte >= 0x30, byte <= 0x39 else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            index += count
            return value
        }

        /// `time-of-day = hour ":" minute ":" second`, two digits each.
        mutating func time() -> (Int, Int, Int)? {
            guard let hour = digits(2), literal(":"), let minute = digits(2), literal(":"), let second = digits(2) else { return nil }
            return (hour, minute, second)
        }
    }
}
