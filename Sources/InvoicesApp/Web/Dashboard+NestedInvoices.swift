import Foundation
import HTTPTypes
import ObjectGraph
import WebServer

/// Invoices added inside a client's form: each is inserted in the client form's scratchpad
/// and edited in a form of its own (`parentFormID`), so they are saved together with the
/// client (one save up the chain) or dropped with it.
extension Dashboard {
    /// A row of the "invoices in this form" table of a client form.
    struct NestedInvoiceRow: Sendable {
        let formPath: String
        let identifier: String
        let amount: String
    }

    /// `action=add-invoice` on a client form: applies its fields, inserts an invoice for the
    /// client in the same scratchpad and opens the invoice's form.
    func addNestedInvoice(to form: EditForm, input: [String: String], visit: Visit) async -> Response {
        let scratchpad = form.scratchpad, clientID = form.objectID
        let invoiceID: ObjectID? = await scratchpad.perform {
            guard let client = try? scratchpad.existingObject(with: clientID) as? Client else { return nil }
            _ = ClientFormFields.apply(input, to: client)
            let invoice = Invoice(context: scratchpad)
            invoice.identifier = ""
            invoice.client = client
            return invoice.objectID
        }
        guard let invoiceID else { return deletedMeanwhile(form, visit: visit) }
        let nested = EditForm(id: SessionStore.randomToken(), kind: .invoice, scratchpad: scratchpad, objectID: invoiceID,
                              isNew: true, returnPath: form.path, parentFormID: form.id)
        sessions.add(nested, to: visit.session.id)
        return .redirect(to: nested.path)
    }

    /// `action=done` (or `save`) on an invoice form inside a client form: the fields are
    /// applied; back to the client's form, where saving saves both.
    func finishNestedInvoice(_ form: EditForm) -> Response {
        .redirect(to: form.returnPath)
    }

    /// `action=cancel` on an invoice form inside a client form: the invoice is removed from
    /// the scratchpad; back to the client's form.
    func cancelNestedInvoice(_ form: EditForm, visit: Visit) async -> Response {
        let scratchpad = form.scratchpad, objectID = form.objectID
        await scratchpad.perform {
            if let invoice = scratchpad.registeredObject(for: objectID) { scratchpad.delete(invoice) }
        }
        sessions.removeForm(form.id, from: visit.session.id, reason: .cancelled)
        return .redirect(to: form.returnPath)
    }

    /// The invoices open inside a client form, read from its scratchpad.
    func nestedInvoices(of form: EditForm, in session: Session) async -> [NestedInvoiceRow] {
        let children = session.forms.filter { $0.parentFormID == form.id }
        guard !children.isEmpty else { return [] }
        let scratchpad = form.scratchpad
        let ids = children.map { ($0.path, $0.objectID) }
        return await scratchpad.perform {
            ids.compactMap { path, id in
                guard let invoice = scratchpad.registeredObject(for: id) as? Invoice, !invoice.isDeleted else { return nil }
                return NestedInvoiceRow(formPath: path, identifier: invoice.identifier.isEmpty ? "(no number yet)" : invoice.identifier,
                                        amount: invoice.money.formatted)
            }
        }
    }
}
