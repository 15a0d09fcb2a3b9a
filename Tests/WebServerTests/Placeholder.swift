import Testing
@Test func placeholderWebServerTests() { #expect(Bool(true)) }
