import Foundation
import ObjectGraph
import Testing
@testable import InvoicesApp

@Suite struct InvoiceValidationTests {
    /// Failures of saving one invoice (with a valid client) changed by `change`.
    private func failures(_ change: @escaping @Sendable (Invoice) -> Void) async throws -> [ValidationFailure] {
        try await validationFailures { c in
            let invoice = c.makeInvoice("INV-1", client: c.makeClient("Acme"), amount: "120.50", currency: "EUR",
                                        issued: "2025-06-01", due: "2025-07-01", asLine: false)
            change(invoice)
        }
    }

    @Test func aCompleteInvoiceSaves() async throws {
        #expect(try await failures { _ in }.isEmpty)
    }

    @Test func anInvoiceThatLeftDraftNeedsANumberAndADraftDoesNot() async throws {
        let found = try await failures { $0.identifier = nil; $0.status = .sent }
        #expect(found.map(\.property) == ["identifier"])
        #expect(found.map(\.message) == ["A sent invoice needs a number: it is given when the invoice leaves draft."])
        #expect(try await failures { $0.identifier = nil; $0.status = .draft }.isEmpty)
    }

    @Test func twoInvoicesCannotShareAnIdentifier() async throws {
        let stack = try makeStack()
        try await insert(into: stack) { c in c.makeInvoice("INV-1", client: c.makeClient("Acme")) }
        let context = stack.newImportContext()
        let error = await context.perform { () -> SaveError? in
            context.makeInvoice("INV-1", client: context.makeClient("Other"))
            do { try context.save(); return nil } catch let error as SaveError { return error } catch { return nil }
        }
        guard case .uniquenessViolation(let violation) = error else {
            Issue.record("expected a uniqueness violation, got \(String(describing: error))")
            return
        }
        let (entity, properties) = (violation.entity, violation.properties)
        #expect(entity == "Invoice")
        #expect(properties == ["identifier"])
    }

    @Test func aNegativeAmountIsRefused() async throws {
        let found = try await failures { $0.amount = -1 }
        #expect(found.map(\.message) == ["Amount must be at least 0."])
    }

    @Test func anAmountWithMoreDecimalsThanTheCurrencyAllowsIsRefused() async throws {
        let yen = try await failures { $0.currency = "JPY"; $0.amount = decimal("1200.5") }
        #expect(yen.map(\.property) == ["amount"])
        #expect(yen.map(\.message) == ["Amount has more decimal places than JPY allows (0)."])
        let euro = try await failures { $0.amount = decimal("10.005") }
        #expect(euro.map(\.message) == ["Amount has more decimal places than EUR allows (2)."])
        let dinar = try await failures { $0.currency = "KWD"; $0.amount = decimal("10.005") }
        #expect(dinar.isEmpty)
    }

    @Test func trailingZerosDoNotCountAsDecimals() async throws {
        #expect(try await failures { $0.currency = "JPY"; $0.amount = decimal("1200.00") }.isEmpty)
    }

    @Test func aCurrencyOutsideTheISOListIsRefused() async throws {
        let found = try await failures { $0.currency = "EURO" }
        #expect(found.map(\.property) == ["currency"])
        #expect(found.map(\.message) == ["Currency \"EURO\" is not an ISO 4217 code; use a code such as EUR, USD or JPY."])
    }

    @Test func aCurrencyWithoutMinorUnitsCannotBeInvoiced() async throws {
        let found = try await failures { $0.currency = "XAU"; $0.amount = 1 }
        #expect(found.map(\.message) == ["XAU (Gold) has no minor unit in ISO 4217 and cannot be used for invoices."])
    }

    @Test func aBlankCurrencyIsRequired() async throws {
        let found = try await failures { $0.currency = " " }
        #expect(found.map(\.message) == ["Currency is required."])
    }

    @Test func theDueDateMustNotBeBeforeTheIssueDate() async throws {
        let found = try await failures { $0.dueDay = day("2025-05-31") }
        #expect(found.map(\.property) == ["dueDate"])
        #expect(found.map(\.message) == ["Due date must not be before the issue date."])
        #expect(try await failures { $0.dueDay = day("2025-06-01") }.isEmpty)
    }

    @Test func anInvoiceNeedsAClient() async throws {
        let found = try await failures { $0.client = nil }
        #expect(found.map(\.message) == ["Client is required."])
    }

    @Test func notesHaveALengthLimit() async throws {
        let found = try await failures { $0.notes = String(repeating: "n", count: 2001) }
        #expect(found.map(\.message) == ["Notes must have at most 2000 characters (has 2001)."])
    }

    @Test func everyFailureOfASaveIsReportedTogether() async throws {
        let found = try await failures {
            $0.currency = "JPY"
            $0.amount = decimal("-0.5")
            $0.dueDay = day("2025-01-01")
        }
        #expect(Set(found.map(\.property)) == ["amount", "dueDate"])
        #expect(found.count == 3)
    }
}
