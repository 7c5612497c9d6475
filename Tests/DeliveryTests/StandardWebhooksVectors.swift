import Foundation
import JuiceTestSupport
import Testing
@testable import WebhookPlugin

/// Signatures the official Standard Webhooks library computes, written down once so
/// the tests need no Python. Produced with the `standardwebhooks` package 1.1.0 from
/// PyPI: `Webhook(secret).sign(id, datetime.fromtimestamp(timestamp, tz=timezone.utc), body)`.
/// The library reads every secret as base64, with or without `whsec_`, padding optional
/// (it appends "==" before decoding).
@Suite(.tags(.unit)) struct StandardWebhooksVectorTests {
    struct Vector: Sendable, CustomTestStringConvertible {
        let secret: String
        let id: String
        let timestamp: Int64
        let body: String
        let signature: String
        var testDescription: String { "\(secret) / \(id)" }
    }

    static let vectors: [Vector] = [
        // The spec's own example.
        Vector(
            secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", id: "msg_p5jXN8AQM9LWM0D4loKWxJek", timestamp: 1_614_265_330,
            body: #"{"test": 2432232314}"#, signature: "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="),
        // No padding, padding, and no prefix: the same key ("abcd").
        Vector(
            secret: "whsec_YWJjZA", id: "01a1fc5d-b317-72bb-86b9-f40d4ecb94d7", timestamp: 1_763_699_361,
            body: #"{"specversion":"1.0"}"#, signature: "v1,4MpqVqJI2opj4tooaOkYfm91MOmutNfL1JzLq+/Jrz0="),
        Vector(
            secret: "whsec_YWJjZA==", id: "01a1fc5d-b317-72bb-86b9-f40d4ecb94d7", timestamp: 1_763_699_361,
            body: #"{"specversion":"1.0"}"#, signature: "v1,4MpqVqJI2opj4tooaOkYfm91MOmutNfL1JzLq+/Jrz0="),
        Vector(
            secret: "YWJjZA", id: "01a1fc5d-b317-72bb-86b9-f40d4ecb94d7", timestamp: 1_763_699_361,
            body: #"{"specversion":"1.0"}"#, signature: "v1,4MpqVqJI2opj4tooaOkYfm91MOmutNfL1JzLq+/Jrz0="),
        // A raw secret is base64 too: the library's Webhook("…") decodes it.
        Vector(
            secret: "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", id: "msg_p5jXN8AQM9LWM0D4loKWxJek", timestamp: 1_614_265_330,
            body: #"{"test": 2432232314}"#, signature: "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="),
        Vector(
            secret: "whsec_c2VjcmV0LWtleS0x", id: "evt-1", timestamp: 0, body: "",
            signature: "v1,KaFGqyMDX+Cxv2i9zYeJFXhD0xlfSOk4HSibU1nfl20="),
        Vector(
            secret: "whsec_AQIDBAUGBwgJCgsMDQ4PEBESExQVFhcYGRobHB0eHyA", id: "id", timestamp: 1_700_000_000,
            body: "caf\u{E9} \u{2615}", signature: "v1,vK0MUyI0BpEFmTXTI3+qaJjt/fXey8pc6Usa6DmXqkU="),
    ]

    @Test(arguments: vectors)
    func signsAsTheOfficialLibraryDoes(vector: Vector) throws {
        let signature = try #require(WebhookSignature(secret: vector.secret), "refused \(vector.secret)")
        let body = Array(vector.body.utf8)
        #expect(signature.signature(id: vector.id, timestamp: vector.timestamp, body: body) == vector.signature)
        #expect(signature.verify(header: "v1,bm90LWl0 " + vector.signature, id: vector.id, timestamp: vector.timestamp, body: body))
    }

    /// Text the library would read by silently skipping characters outside the base64
    /// alphabet (so with a key other than the text suggests), or that is not base64 at all.
    @Test(arguments: ["", "whsec_", "whsec_%%%", "s3cr3t-for-tests", "my secret", "whsec_YWJjZA===", "YWJjZ", "whsec_YW=JjZA", "whsec_YWJj_ZA"])
    func refusesWhatIsNotBase64(secret: String) {
        #expect(WebhookSignature(secret: secret) == nil)
    }
}
