import Testing
@Test func placeholderSQLiteStoreTests() { #expect(Bool(true)) }
