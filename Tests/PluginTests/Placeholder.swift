import Testing
@Test func placeholderPluginTests() { #expect(Bool(true)) }
