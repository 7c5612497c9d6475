import JuiceTestSupport
import Testing
import WebhookPlugin

/// Standard Webhooks signing: how a secret is read, and the reference example.
@Suite(.tags(.unit)) struct SignatureTests {
    @Test func secretsWithAndWithoutThePrefixAreTheSameKey() throws {
        let bare = try #require(WebhookSignature(secret: "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"))
        let prefixed = try #require(WebhookSignature(secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"))
        let body = Array("{\"a\":1}".utf8)
        #expect(
            bare.signature(id: "msg_1", timestamp: 1_700_000_000, body: body)
                == prefixed.signature(id: "msg_1", timestamp: 1_700_000_000, body: body))
        #expect(WebhookSignature(secret: "whsec_%%%") == nil)
        #expect(WebhookSignature(secret: "") == nil)
        #expect(!"\(bare)".contains("MfKQ"))
    }

    /// The Standard Webhooks reference example (standard-webhooks/spec, its test vectors).
    @Test func matchesTheStandardWebhooksReferenceExample() throws {
        let signature = try #require(WebhookSignature(secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"))
        let body = Array(#"{"test": 2432232314}"#.utf8)
        #expect(
            signature.signature(id: "msg_p5jXN8AQM9LWM0D4loKWxJek", timestamp: 1_614_265_330, body: body)
                == "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")
    }
}
