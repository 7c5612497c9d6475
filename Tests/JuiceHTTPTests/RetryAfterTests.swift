import Foundation
import JuiceMakerCore
import JuiceMakerPluginKit
import JuicePrimitives
import JuiceTestSupport
import Testing
@testable import JuiceHTTP

/// `Retry-After` as RFC 9110 (sections 10.2.3 and 5.6.7) defines it.
@Suite(.tags(.unit)) struct RetryAfterTests {
    /// 1994-11-06T08:49:37Z, the RFC's own example instant.
    private let example = Date(timeIntervalSince1970: 784_111_777)

    @Test(
        "the three HTTP-date forms of RFC 9110 section 5.6.7 name the same instant",
        arguments: [
            "Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994",
        ])
    func httpDateForms(value: String) {
        let now = example.addingTimeInterval(-90)
        #expect(RetryAfter.seconds(value, now: now) == 90)
    }

    @Test("asctime with a two-digit day, and a date in the past asks for no wait")
    func asctimeAndPast() {
        #expect(RetryAfter.seconds("Thu Nov 16 08:49:37 1994", now: example) == 864_000.0)
        #expect(RetryAfter.seconds("Sun, 06 Nov 1994 08:49:37 GMT", now: example.addingTimeInterval(5)) == 0)
    }

    @Test(
        "an RFC 850 year more than 50 years ahead is the most recent past year with those digits",
        arguments: [
            // (the current year, the two digits, the year they mean)
            (2026, 94, 1994), (2026, 76, 2076), (2026, 77, 1977), (2026, 30, 2030), (2026, 0, 2000), (2099, 1, 2101),
        ])
    func rfc850Years(current: Int, digits: Int, year: Int) throws {
        let now = try #require(RFC3339.parse("\(current)-06-01T00:00:00Z"))
        #expect(HTTPDate.fullYear(digits, now: now) == year)
    }

    @Test(
        "delay-seconds is digits only, surrounded by optional whitespace at most",
        arguments: [
            ("120", 120.0), (" 120\t", 120), ("0", 0), ("007", 7),
        ])
    func delaySeconds(value: String, seconds: Double) {
        #expect(RetryAfter.seconds(value, now: example) == seconds)
    }

    @Test(
        "values that are neither form are refused",
        arguments: [
            "+120", "-1", "1.5", "1 2", "", " ", "0x10", "１２０",
            "sun, 06 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 08:49:37 UTC", "Sun, 6 Nov 1994 08:49:37 GMT",
            "Sun, 31 Feb 1994 08:49:37 GMT", "Sun, 06 Nov 1994 24:00:00 GMT", "Sun, 06 Nov 1994 08:60:00 GMT",
            "Sunday, 06-Nov-1994 08:49:37 GMT", "Sun Nov 6 08:49:37 1994", "Sun Nov  6 08:49:37 1994 GMT",
        ])
    func refused(value: String) {
        #expect(RetryAfter.seconds(value, now: example) == nil)
    }
}
