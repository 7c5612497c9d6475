import JuiceMakerCore
import JuiceMakerPluginKit
import JuicePrimitives
import Testing

/// A destination answers each event accepted, retry (after a time it may name) or
/// refused for good; the runner keeps a failure for the two that are not accepted. The
/// two readings agree both ways.
@Suite(.tags(.unit)) struct DeliveryAnswerTests {
    static let message = PluginMessage(english: "HTTP 503", korean: "HTTP 503")

    @Test(arguments: [
        DeliveryAnswer.accepted, .retry(message), .retry(message, after: 30), .refused(message),
    ])
    func anAnswerAndTheFailureTheRunnerKeepsAgree(_ answer: DeliveryAnswer) {
        let failure = answer.failure
        switch answer {
        case .accepted:
            #expect(failure == nil)
        case let .retry(message, after):
            #expect(failure == DeliveryFailure(message, retryAfter: after))
            #expect(failure?.isPermanent == false)
        case let .refused(message):
            #expect(failure == DeliveryFailure(message, isPermanent: true))
        }
        #expect(failure.map(\.answer) ?? .accepted == answer)
    }
}
