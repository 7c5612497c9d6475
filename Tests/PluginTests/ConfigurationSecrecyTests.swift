import JuiceJSON
import JuiceMakerPluginKit
import JuiceTestSupport
import Testing

/// What `juice config show` hides is declared with each key (`ConfigurationKey.secrecy`):
/// a new plugin's secret is masked by declaring it, whatever its name.
@Suite(.tags(.unit)) struct ConfigurationSecrecyTests {
    @Test func aKeyDeclaredSecretIsHiddenWhole() {
        let key = ConfigurationKey("signingKey", .string, secrecy: .secret, description: "A key.")
        #expect(key.secrecy.shown(.string("k-4711")) == .string("***"))
        #expect(ConfigurationKey("apiToken", .string, description: "A token.").secrecy == .secret, "named like a secret")
        #expect(ConfigurationKey("path", .string, description: "A path.").secrecy == ConfigurationSecrecy.none)
    }

    @Test func urlCredentialsAreHiddenInAnyValue() {
        let shown = ConfigurationSecrecy.none.shown(.array([.string("https://u:p-4711@h/x?q=v-4711")]))
        #expect(shown == .array([.string("https://***@h/x?q=***")]))
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

    @Test func argumentsLoseTheirCredentials() {
        let arguments: [JSONValue] = [
            "/bin/tool", "admin:pw", "--user=admin:pw", "--api-key=k", "--token", "t", "--verbose", "plain", "/a:b",
        ].map { .string($0) }
        let expected: [JSONValue] = [
            "/bin/tool", "admin:***", "--user=admin:***", "--api-key=***", "--token", "***", "--verbose", "plain", "/a:b",
        ].map { .string($0) }
        #expect(ConfigurationSecrecy.credentials.shown(.array(arguments)) == .array(expected))
    }
}
