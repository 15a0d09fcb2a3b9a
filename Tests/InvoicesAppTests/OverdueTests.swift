import Foundation
import ObjectGraph
import Testing
@testable import InvoicesApp

@Suite struct OverdueTests {
    @Test func aSentInvoicePastItsDueDateIsOverdue() {
        #expect(Invoice.isOverdue(status: .sent, dueDay: day("2025-06-14"), today: today))
    }

    @Test func anInvoiceDueTodayIsNotOverdueYet() {
        #expect(!Invoice.isOverdue(status: .sent, dueDay: today, today: today))
    }

    @Test func paidDraftAndCancelledInvoicesAreNeverOverdue() {
        for status in [InvoiceStatus.paid, .draft, .cancelled] {
            #expect(!Invoice.isOverdue(status: status, dueDay: day("2025-01-01"), today: today))
        }
    }

    @Test(arguments: StackStore.all) func anInvoiceBecomesOverdueWithTimeWithoutBeingSaved(_ store: StackStore) async throws {
        let stack = try await makeStack(store)
        let context = stack.newImportContext()
        let (before, after) = await context.perform { () -> (Bool, Bool) in
            let invoice = context.makeInvoice("A", client: context.makeClient("Acme"), status: .sent,
                                              issued: "2025-06-01", due: "2025-06-30")
            return (invoice.isOverdue(on: today), invoice.isOverdue(on: day("2025-07-01")))
        }
        #expect(!before)
        #expect(after)
    }

    @Test(arguments: StackStore.all) func overdueIsNotStoredOnlyTheStatusAsItsRawString(_ store: StackStore) async throws {
        let model = try InvoicesModel.make()
        let invoice = try #require(model.entities.first { $0.name == "Invoice" })
        let names = invoice.properties.map(\.name)
        #expect(!names.contains { $0.lowercased().contains("overdue") })
        let stack = try await makeStack(store)
        try await insert(into: stack) { c in c.makeInvoice("A", client: c.makeClient("Acme"), status: .sent) }
        let context = stack.newImportContext()
        let stored = try await context.perform { () throws -> String? in
            let found = try context.fetch(FetchRequest<Invoice>())
            return try found.first?.value(forKey: "status") as? String
        }
        #expect(stored == "sent")
    }
}
