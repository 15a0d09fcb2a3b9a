import Foundation
import Testing
@testable import InvoicesApp

@Suite struct FieldInputTests {
    @Test func amountsAreDigitsWithAnOptionalPoint() throws {
        #expect(try FieldInput.amount(" 1234.50 ").get() == decimal("1234.5"))
        #expect(try FieldInput.amount("-0.5").get() == decimal("-0.5"))
        #expect(try FieldInput.amount("0").get() == 0)
    }

    @Test func amountsWithSeparatorsExponentsOrSignsAreRefusedWithTheReason() {
        for text in ["1,234.00", "1e5", ".5", "5.", "€5", "5 EUR", "1.2.3", "--1", "+1", "abc"] {
            guard case .failure(let error) = FieldInput.amount(text) else {
                Issue.record("\(text) was accepted")
                continue
            }
            #expect(error.property == "amount")
            #expect(error.message.hasPrefix("Amount \"\(text)\" is not a number like 1234.50"))
        }
        guard case .failure(let blank) = FieldInput.amount("  ") else { Issue.record("blank accepted"); return }
        #expect(blank.message == "Amount is required.")
    }

    @Test func statusesAreCaseInsensitiveAndOverdueIsExplained() throws {
        #expect(try FieldInput.status("Sent").get() == .sent)
        guard case .failure(let overdue) = FieldInput.status("overdue") else { Issue.record("overdue accepted"); return }
        #expect(overdue.message.contains("an invoice is overdue when it is sent and past its due date"))
        guard case .failure(let other) = FieldInput.status("open") else { Issue.record("open accepted"); return }
        #expect(other.message == "Status \"open\" is not one of draft, sent, paid, cancelled.")
    }

    @Test func emailsAreTrimmedAndLowerCasedAndBlankMeansNone() {
        #expect(EmailAddress.normalized("  Billing@Acme.DE ") == "billing@acme.de")
        #expect(EmailAddress.normalized("   ") == nil)
        #expect(EmailAddress.normalized(nil) == nil)
    }
}
