import Foundation
import Testing
@testable import InvoicesApp

/// Payments recorded through the real server: a partial payment, then the rest, an
/// overpayment refused, and what the invoice's page, its client's page and its PDF say.
@Suite struct PaymentTests {
    private func invoiceID(_ identifier: String, _ visitor: Visitor) async throws -> Int64 {
        let list = try jsonDecoder().decode(Page<InvoiceSummary>.self,
                                            from: try await visitor.get("/invoices.json?q=\(identifier)").body)
        return try #require(list.items.first { $0.identifier == identifier }?.id)
    }

    /// Opens the payment form of an invoice and saves `amount`; returns the answer.
    private func pay(_ amount: String?, invoice pk: Int64, _ visitor: Visitor) async throws -> (WebResponse, form: WebResponse) {
        let (path, form) = try await visitor.openForm("/payments/new?invoice=\(pk)")
        var fields = [("csrf", try #require(form.csrf)), ("date", "2025-06-20"), ("method", "Bank transfer"),
                      ("note", "ref 42"), ("action", "save")]
        if let amount { fields.append(("amount", amount)) }
        return (try await visitor.post(path, fields), form)
    }

    @Test(arguments: StackStore.all) func aPartialPaymentThenTheRestMakeTheInvoicePaid(_ store: StackStore) async throws {
        try await withDashboard(on: store) { app in
            let visitor = app.visitor()
            let pk = try await invoiceID("INV-1", visitor)   // 100.00 EUR, sent
            #expect(try await visitor.get("/invoices/\(pk)").text.contains("/payments/new?invoice=\(pk)"))

            let (first, form) = try await pay("40", invoice: pk, visitor)
            #expect(form.text.contains("value=\"100.00\""), "the form offers the balance")
            #expect(first.status == 303)
            #expect(first.header("Location") == "/invoices/\(pk)")
            let partly = try await visitor.get("/invoices/\(pk)").text
            #expect(partly.contains("partially paid"))
            #expect(partly.contains("60.00 EUR"), "the balance")
            #expect(partly.contains("ref 42"))
            let client = try jsonDecoder().decode(ClientDetail.self,
                                                  from: try await visitor.get("/clients/\(try await clientID("Acme Corp", visitor: visitor)).json").body)
            #expect(client.balance.formatted.contains("60.00 EUR"), "\(client.balance.formatted)")

            let (second, rest) = try await pay(nil, invoice: pk, visitor)   // the offered amount: the rest
            #expect(rest.text.contains("value=\"60.00\""))
            #expect(second.status == 303)
            let paid = try await visitor.get("/invoices/\(pk)").text
            #expect(paid.contains("status-paid"))
            #expect(paid.contains("0.00 EUR"))
            #expect(!paid.contains("/payments/new?invoice=\(pk)"), "nothing left to pay")
            let detail = try jsonDecoder().decode(InvoiceDetail.self, from: try await visitor.get("/invoices/\(pk).json").body)
            #expect(detail.summary.status == .paid)
            #expect(detail.payments.map(\.amount.amount) == [decimal("40"), decimal("60")])
            let printed = InvoiceDocument(detail)
            #expect(printed.payments.map(\.method) == ["Bank transfer", "Bank transfer"])
            #expect(printed.balance == 0)
        }
    }

    @Test(arguments: StackStore.all) func anOverpaymentIsRefusedWithTheMostItCanBe(_ store: StackStore) async throws {
        try await withDashboard(on: store) { app in
            let visitor = app.visitor()
            let pk = try await invoiceID("INV-1", visitor)
            let (refused, _) = try await pay("100.01", invoice: pk, visitor)
            #expect(refused.status == 422)
            #expect(refused.text.contains("the most this payment can be is 100.00 EUR"), "\(refused.text)")
            let (zero, _) = try await pay("0", invoice: pk, visitor)
            #expect(zero.status == 422)
            #expect(zero.text.contains("more than zero"))
            let detail = try jsonDecoder().decode(InvoiceDetail.self, from: try await visitor.get("/invoices/\(pk).json").body)
            #expect(detail.payments.isEmpty)
            #expect(detail.summary.status == .sent)
        }
    }

    @Test(arguments: StackStore.all) func theInvoicesAmountCannotDropBelowWhatWasPaid(_ store: StackStore) async throws {
        try await withDashboard(on: store) { app in
            let visitor = app.visitor()
            let pk = try await invoiceID("INV-1", visitor)
            #expect(try await pay("70", invoice: pk, visitor).0.status == 303)
            let (path, form) = try await visitor.openForm("/invoices/\(pk)/edit")
            let refused = try await visitor.post(path, [("csrf", try #require(form.csrf)), ("line-0-unitPrice", "50"),
                                                         ("action", "save")])
            #expect(refused.status == 422)
            #expect(refused.text.contains("less than the payments already received (70.00 EUR)"))
        }
    }
}
