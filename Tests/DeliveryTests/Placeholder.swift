import Testing
@Test func placeholderDelivery() { #expect(Bool(true)) }
