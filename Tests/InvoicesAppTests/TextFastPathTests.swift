import Foundation
import Testing
@testable import InvoicesApp

/// The import's fast paths give what Foundation's general ones give.
@Suite struct TextFastPathTests {
    @Test(arguments: ["", " ", "a", " a ", "\t\n a b \r\n", "\u{00A0}x\u{3000}", "\u{2028}é\u{0301} ", "x\u{0301} ",
                      "\u{200B}zero width\u{200B}", "日本 ", "\u{85}next line\u{85}", "  \u{1680}"])
    func trimmingMatchesFoundation(_ text: String) {
        #expect(text.trimmingWhitespace() == text.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    @Test func whiteSpaceIsFoundationsSetScalarByScalar() {
        let set = CharacterSet.whitespacesAndNewlines
        let differing = (0...0x10FFFF).compactMap(Unicode.Scalar.init).filter { set.contains($0) != $0.isWhiteSpace }
        #expect(differing.isEmpty, "\(differing.map { String($0.value, radix: 16) })")
    }

    @Test func amountsReadExactlyAsFoundationReadsThem() throws {
        var generator = SystemRandomNumberGenerator()
        var samples = ["0", "-0", "0.00", "-0.10", "007.5", "1.50", "999999999999999", "123456789012345.678",
                       "1234.567890123456789012345678901234", "0.000000000000000001"]
        for _ in 0..<2_000 {
            let before = String(UInt64.random(in: 0...999_999_999_999, using: &generator))
            let after = String(UInt64.random(in: 0...999_999, using: &generator))
            let sign = Bool.random(using: &generator) ? "-" : ""
            samples.append(Bool.random(using: &generator) ? "\(sign)\(before).\(after)" : "\(sign)\(before)")
        }
        let posix = Locale(identifier: "en_US_POSIX")
        for text in samples {
            let expected = try #require(Decimal(string: text, locale: posix))
            let read = try FieldInput.amount(text).get()
            #expect(read == expected, "\(text)")
            #expect(read.description == expected.description, "\(text)")
        }
    }

    @Test func emailRulesStillRefuseWhatTheyRefused() {
        for text in ["a b@c.d", "a@b", "a\u{3000}b@c.d", "a@b@c.d", "(a)@b.c", "a@b.c\u{7F}", "a@-b.c"] {
            #expect(!EmailAddress.isValid(text), "\(text)")
        }
        for text in ["a@b.c", "jürgen@beispiel.de", "x.y+z@mail.example.com"] {
            #expect(EmailAddress.isValid(text), "\(text)")
        }
    }
}
