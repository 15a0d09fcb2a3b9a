import Testing
@Test func placeholderInvoicesAppTests() { #expect(Bool(true)) }
