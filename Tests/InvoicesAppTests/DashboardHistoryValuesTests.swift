import Foundation
import ObjectGraph
import Testing
@testable import InvoicesApp

/// The dashboard's entities record their values in persistent history: a form's saves can
/// be read back as who changed what, from what to what.
@Suite struct DashboardHistoryValuesTests {
    @Test func formSavesOfAnInvoiceReadBackAsItsHistoryWithValues() async throws {
        let stack = try makeStack()
        let form = stack.newScratchpad(name: "form")
        let temporary = await form.perform {
            let client = form.makeClient("Acme GmbH")
            return (client.objectID, form.makeInvoice("A-1", client: client, amount: "100.00").objectID)
        }
        let saved = await stack.save(form)
        guard case .saved = saved else { Issue.record("the form did not save: \(saved)"); return }
        // Temporary IDs keep resolving in the form after the save, to the permanent ones.
        let (clientID, invoiceID) = try await form.perform {
            (try form.existingObject(with: temporary.0).objectID, try form.existingObject(with: temporary.1).objectID)
        }
        #expect(!clientID.isTemporaryID && !invoiceID.isTemporaryID)
        let edit = stack.newScratchpad(name: "edit")
        try await edit.perform {
            let invoice = try edit.existingObject(with: invoiceID, as: Invoice.self)
            invoice.amount = decimal("250.55")
            invoice.status = .sent
        }
        let edited = await stack.save(edit)
        guard case .saved = edited else { Issue.record("the edit did not save: \(edited)"); return }

        let history = try stack.coordinator.history(of: invoiceID)
        #expect(history.map { $0.changes.map(\.kind) } == [[.update], [.insert]])
        let update = try #require(history.first?.changes.first)
        #expect(update.values["amount"] == HistoryValueChange(old: .decimal(decimal("100")), new: .decimal(decimal("250.55"))))
        #expect(update.values["status"]?.new(as: InvoiceStatus.self) == .sent)
        #expect(Set(update.values.keys) == ["amount", "status"])
        let insert = try #require(history.last?.changes.first)
        #expect(insert.values["client"]?.new?.objectID == clientID)
        #expect(insert.values["identifier"]?.new == .string("A-1"))
        #expect(try stack.coordinator.history(of: clientID).first?.changes.first?.values["name"]?.new == .string("Acme GmbH"))
    }
}
