import Foundation
import JuiceMakerPluginKit
import JuiceTestSupport
import Testing
@testable import WebhookPlugin

/// What the webhook makes of a `Retry-After` its endpoint sends.
@Suite(.tags(.unit)) struct WebhookRetryAfterTests {
    /// 1994-11-06T08:49:37Z, the RFC's own example instant.
    private let example = Date(timeIntervalSince1970: 784_111_777)

    @Test("a huge value is capped at the longest step of the retry schedule")
    func hugeValuesAreCapped() {
        let longest = RetrySchedule.standard.delays.max() ?? 0
        #expect(HTTPDestination.retryAfterSeconds("99999999999999999999", now: example, longest: longest) == 36_000)
        #expect(HTTPDestination.retryAfterSeconds("Fri, 31 Dec 9999 23:59:59 GMT", now: example, longest: longest) == 36_000)
        #expect(HTTPDestination.retryAfterSeconds("60", now: example, longest: longest) == 60)
    }
}
