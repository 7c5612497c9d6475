import JuiceJSON
import JuiceMakerPluginKit
import JuicePrimitives
import JuiceTestSupport
import Testing

/// What `juice config show` hides is declared with each key (`ConfigurationKey.secrecy`):
/// a new plugin's secret is masked by declaring it, whatever its name.
@Suite(.tags(.unit)) struct ConfigurationSecrecyTests {
    @Test func aKeyDeclaredSecretIsHiddenWhole() {
        let key = ConfigurationKey("signingKey", .string, secrecy: .secret, description: "A key.")
        #expect(key.secrecy.shown(.string("k-4711")) == .string("***"))
        #expect(ConfigurationKey("apiToken", .string, description: "A token.").secrecy == .secret, "named like a secret")
        // Denied by default: text is shown only when declared harmless.
        #expect(ConfigurationKey("path", .string, description: "A path.").secrecy == .secret)
        #expect(ConfigurationKey("path", .string, secrecy: .harmless, description: "A path.").secrecy == .harmless)
        #expect(ConfigurationKey("count", .integer(1...9), description: "A count.").secrecy == .harmless)
        #expect(ConfigurationKey("mode", .oneOf(["a", "b"]), description: "A mode.").secrecy == .harmless)
        #expect(ConfigurationKey("hook", .string([.httpURL]), description: "A URL.").secrecy == .harmless)
        #expect(ConfigurationKey("words", .list(.string), description: "Words.").secrecy == .secret)
    }

    @Test func urlCredentialsAreHiddenInAnyValue() {
        let shown = ConfigurationSecrecy.harmless.shown(.array([.string("https://u:p-4711@h/x?q=v-4711")]))
        #expect(shown == .array([.string("https://***@h/x?q=***")]))
    }

    /// Every place of a URL that can hold a secret, in every URL of a text.
    @Test(arguments: [
        ("nats://h1:4222,nats://u:SECRET@h2:4222", "nats://h1:4222,nats://***@h2:4222"),
        ("https://u:pa/SECRET@h/x", "https://***@h/x"), ("https://u:pa#SECRET@h/x", "https://***@h/x"),
        ("https://u:pa?SECRET@h/x", "https://***@h/x"), ("https://h/x#SECRET", "https://h/x#***"),
        ("https://h/x?token=SECRET&debug", "https://h/x?token=***&***"),
        ("https://hooks.example.com/services/T0AB12CD3/B0EF45GH6/SECRETxyz12345678901234", "https://hooks.example.com/services/***/***/***"),
        ("see https://u:SECRET@h and http://v:SECRET@k/", "see https://***@h and http://***@k/"),
    ])
    func everyURLIsShownWithoutItsSecrets(written: String, shown: String) {
        #expect(URLCredentials.redacted(written) == shown)
        #expect(!URLCredentials.redacted(written).contains("SECRET"))
    }

    @Test func environmentValuesAreHiddenButHarmlessOnes() {
        let secrecy = ConfigurationSecrecy.secretValues(harmless: ["LANG", "LC_*"])
        let value = JSONValue.object([
            JSONMember(key: "LANG", value: .string("C")), JSONMember(key: "LC_TIME", value: .string("C")),
            JSONMember(key: "LCX", value: .string("s")), JSONMember(key: "DB_HOST", value: .string("s")),
        ])
        #expect(
            secrecy.shown(value)
                == .object([
                    JSONMember(key: "LANG", value: .string("C")), JSONMember(key: "LC_TIME", value: .string("C")),
                    JSONMember(key: "LCX", value: .string("***")), JSONMember(key: "DB_HOST", value: .string("***")),
                ]))
    }

    /// A program is shown, its arguments never: any of them may carry a secret
    /// (`PGPASSWORD=…`, `sh -c "curl -u admin:…"`).
    @Test func argumentsAreMaskedAfterTheProgram() {
        let arguments: [JSONValue] = ["/bin/tool", "admin:pw", "PGPASSWORD=x", "--verbose"].map { .string($0) }
        let expected: [JSONValue] = ["/bin/tool", "***", "***", "***"].map { .string($0) }
        #expect(ConfigurationSecrecy.credentials.shown(.array(arguments)) == .array(expected))
        #expect(
            ConfigurationSecrecy.credentials.shown(.array([.string("https://u:pw@h/run"), .string("x")]))
                == .array([.string("https://***@h/run"), .string("***")]))
    }
}
