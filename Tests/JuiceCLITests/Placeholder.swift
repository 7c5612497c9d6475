import Testing
@Test func placeholderJuiceCLITests() { #expect(Bool(true)) }
