import Foundation
import Mustache
import Testing
@testable import InvoicesApp

/// The read pages' models answer templates by a hand-written `switch` (no `Mirror`): a name
/// left out there would render as empty without any error, so each model's stored
/// properties are checked against what it answers.
@Suite struct TemplateContextTests {
    /// Every stored property of `model` (nested models and rows included) answers under its
    /// own name with the same value.
    private func expectEveryPropertyAnswers(_ model: any MustacheParent, path: String = "",
                                            sourceLocation: SourceLocation = #_sourceLocation) {
        for child in Mirror(reflecting: model).children {
            guard let label = child.label else { continue }
            let name = path.isEmpty ? label : path + "." + label
            let stored = Self.unwrapped(child.value)
            let answered = model.child(named: label)
            #expect((stored == nil) == (answered == nil), "\(type(of: model)).\(name)", sourceLocation: sourceLocation)
            guard let stored, let answered else { continue }
            #expect(String(describing: stored) == String(describing: answered), "\(type(of: model)).\(name)",
                    sourceLocation: sourceLocation)
            if let nested = answered as? any MustacheParent {
                expectEveryPropertyAnswers(nested, path: name, sourceLocation: sourceLocation)
            } else if let list = answered as? [Any] {
                for case let element as any MustacheParent in list.prefix(2) {
                    expectEveryPropertyAnswers(element, path: name + "[]", sourceLocation: sourceLocation)
                }
            }
        }
        #expect(model.child(named: "noSuchName") == nil)
    }

    private static func unwrapped(_ value: Any) -> Any? {
        let mirror = Mirror(reflecting: value)
        guard mirror.displayStyle == .optional else { return value }
        return mirror.children.first?.value
    }

    @Test func theListPagesAnswerEveryPropertyByName() async throws {
        let stack = try await makeFixtureStack()
        let clients = try await stack.clientPage(ClientQuery(search: "acme", page: 1, pageSize: 1))
        let clientList = ClientListPage(clients, query: ClientQuery(search: "acme", page: 1, pageSize: 1),
                                        beingEdited: [clients.items[0].id])
        #expect(clientList.pager.nextLink != nil)
        expectEveryPropertyAnswers(clientList)
        let query = InvoiceQuery(status: .sent, sort: .amount, page: 2, pageSize: 2)
        let invoices = try await stack.invoicePage(query, today: day("2025-06-20"))
        let invoiceList = InvoiceListPage(invoices, query: query, beingEdited: Set(invoices.items.map(\.id)),
                                          currencyOptions: "<option value=\"\">Any currency</option>")
        #expect(invoiceList.pager.previousLink != nil)
        expectEveryPropertyAnswers(invoiceList)
    }

    @Test func theDetailPagesAnswerEveryPropertyByName() async throws {
        let stack = try await makeFixtureStack()
        let acme = try await clientID("Acme GmbH", in: stack)
        let client = try #require(try await stack.clientDetail(id: acme, today: day("2025-06-20")))
        expectEveryPropertyAnswers(ClientPage(client, beingEdited: true, invoicesBeingEdited: [client.invoices[0].id]))
        let overdue = try #require(client.invoices.first { $0.isOverdue })
        let invoice = try #require(try await stack.invoiceDetail(id: overdue.id, today: day("2025-06-20")))
        expectEveryPropertyAnswers(InvoicePage(invoice, beingEdited: false))
    }
}
