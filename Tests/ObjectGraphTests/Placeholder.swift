import Testing
@Test func placeholderObjectGraphTests() { #expect(Bool(true)) }
