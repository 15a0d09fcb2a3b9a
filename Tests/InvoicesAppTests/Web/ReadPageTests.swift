import Foundation
import Testing
@testable import InvoicesApp

/// The read pages over HTTP: lists, details, their `.json` twins, 404s.
@Suite struct ReadPageTests {
    @Test(arguments: StackStore.all) func rootRedirectsToTheClientList(_ store: StackStore) async throws {
        try await withDashboard(on: store) { app in
            let response = try await app.visitor().get("/")
            #expect(response.status == 303)
            #expect(response.header("Location") == "/clients")
        }
    }

    @Test(arguments: StackStore.all) func clientListShowsRowsAndTotalAndItsJSONTwinAgrees(_ store: StackStore) async throws {
        try await withDashboard(on: store) { app in
            let visitor = app.visitor()
            let html = try await visitor.get("/clients")
            #expect(html.status == 200)
            #expect(html.header("Content-Type") == "text/html; charset=utf-8")
            #expect(html.text.contains("Acme Corp"))
            #expect(html.text.contains("Beta Ltd"))
            #expect(html.text.contains("1–2 of 2"))
            #expect(html.text.contains("<caption>"))
            let json = try await visitor.get("/clients.json")
            #expect(json.header("Content-Type") == "application/json")
            let page = try jsonDecoder().decode(Page<ClientSummary>.self, from: json.body)
            #expect(page.totalCount == 2)
            for client in page.items { #expect(html.text.contains("<a href=\"/clients/\(client.id)\">\(client.name)</a>")) }
        }
    }

    @Test(arguments: StackStore.all) func readPagesMakeNoSession(_ store: StackStore) async throws {
        try await withDashboard(on: store) { app in
            let visitor = app.visitor()
            for path in ["/clients", "/invoices", "/clients/99999"] {
                let response = try await visitor.get(path)
                #expect(response.header("Set-Cookie") == nil, "\(path)")
            }
            #expect(app.server.dashboard.sessions.count == 0)
        }
    }

    @Test(arguments: StackStore.all) func clientSearchAndSortAreKeptInLinks(_ store: StackStore) async throws {
        try await withDashboard(on: store) { app in
            let visitor = app.visitor()
            let html = try await visitor.get("/clients?q=acme&sort=-name")
            #expect(html.text.contains("Acme Corp"))
            #expect(!html.text.contains("Beta Ltd"))
            #expect(html.text.contains("aria-sort=\"descending\""))
            #expect(html.text.contains("href=\"/clients?q=acme\">Name"))   // ascending by name is the default
            #expect(html.text.contains("href=\"/clients?q=acme&amp;sort=email\""))
        }
    }

    @Test(arguments: StackStore.all) func badQueryValuesFallBackToDefaults(_ store: StackStore) async throws {
        try await withDashboard(on: store) { app in
            let visitor = app.visitor()
            let clients = try await visitor.get("/clients?page=abc&sort=nonsense&page_size=-3")
            #expect(clients.status == 200)
            #expect(clients.text.contains("Acme Corp"))
            let invoices = try await visitor.get("/invoices?status=bogus&from=yesterday&client=x&page=999")
            #expect(invoices.status == 200)
            #expect(invoices.text.contains("INV-1"))
        }
    }

    @Test(arguments: StackStore.all) func clientPageShowsTotalsPerCurrencyAndItsJSONTwinAgrees(_ store: StackStore) async throws {
        try await withDashboard(on: store) { app in
            let visitor = app.visitor()
            let id = try await clientID("Acme Corp", visitor: visitor)
            let html = try await visitor.get("/clients/\(id)")
            #expect(html.status == 200)
            #expect(html.text.contains("150.50 EUR"))   // billed: sent + paid
            #expect(html.text.contains("100.00 EUR"))   // balance: sent
            #expect(html.text.contains("20.00 USD"))
            let detail = try jsonDecoder().decode(ClientDetail.self, from: try await visitor.get("/clients/\(id).json").body)
            #expect(detail.invoices.count == 3)
            #expect(detail.totals.formatted == ["150.50 EUR", "20.00 USD"])
            for invoice in detail.invoices { #expect(html.text.contains(invoice.number)) }
        }
    }

    @Test(arguments: StackStore.all) func invoiceListFiltersByStatusAndCurrencyAndItsJSONTwinAgrees(_ store: StackStore) async throws {
        try await withDashboard(on: store) { app in
            let visitor = app.visitor()
            let html = try await visitor.get("/invoices?status=sent&currency=EUR")
            #expect(html.status == 200)
            #expect(html.text.contains("INV-1"))
            #expect(!html.text.contains("INV-2<"))
            #expect(!html.text.contains("INV-3<"))
            #expect(html.text.contains("<option value=\"sent\" selected>"))
            // The currency options are rendered once per selection and kept: each page marks its own
            #expect(html.text.contains("<option value=\"EUR\" selected>EUR</option>"))
            #expect(html.text.components(separatedBy: " selected>").count - 1 == 2)
            let usd = try await visitor.get("/invoices?currency=USD")
            #expect(usd.text.contains("<option value=\"USD\" selected>USD</option>"))
            #expect(usd.text.contains("<option value=\"EUR\">EUR</option>"))
            let any = try await visitor.get("/invoices?currency=XYZ")
            #expect(!any.text.contains("\" selected>Any currency") && !any.text.contains("XYZ\" selected"))
            let again = try await visitor.get("/invoices?status=paid&currency=EUR")
            #expect(again.text.contains("<option value=\"EUR\" selected>EUR</option>"))
            let page = try jsonDecoder().decode(Page<InvoiceSummary>.self,
                                                from: try await visitor.get("/invoices.json?status=sent&currency=EUR").body)
            #expect(page.items.map(\.identifier) == ["INV-1"])
        }
    }

    @Test(arguments: StackStore.all) func theInvoiceListShowsEachCurrencyOnceInItsOwnColumn(_ store: StackStore) async throws {
        try await withDashboard(on: store) { app in
            let html = try await app.visitor().get("/invoices?q=INV-1")
            let row = try #require(html.text.firstMatch(of: /<tr>\s*<td><a href="\/invoices\/\d+">INV-1<\/a>(?s:.*?)<\/tr>/))
            let cells = row.output.matches(of: /<td[^>]*>(.*?)<\/td>/).map { String($0.output.1) }
            #expect(cells.count == 7)
            #expect(cells[2] == "100.00")
            #expect(cells[3] == "EUR")
            #expect(row.output.matches(of: /EUR/).count == 1)
            // A client's page has no currency column: there the amount keeps its code.
            let clientPage = try await app.visitor().get("/clients/\(try await clientID("Acme Corp", visitor: app.visitor()))")
            #expect(clientPage.text.contains("<td class=\"num\">100.00 EUR</td>"))
        }
    }

    @Test(arguments: StackStore.all) func invoicePageIsPrintFriendlyAndItsJSONTwinAgrees(_ store: StackStore) async throws {
        try await withDashboard(on: store) { app in
            let visitor = app.visitor()
            let page = try jsonDecoder().decode(Page<InvoiceSummary>.self, from: try await visitor.get("/invoices.json?q=INV-3").body)
            let id = try #require(page.items.first?.id)
            let html = try await visitor.get("/invoices/\(id)")
            #expect(html.status == 200)
            #expect(html.text.contains("Invoice INV-3"))
            #expect(html.text.contains("20.00 USD"))
            let detail = try jsonDecoder().decode(InvoiceDetail.self, from: try await visitor.get("/invoices/\(id).json").body)
            #expect(html.text.contains(detail.client.name))
            let css = try await visitor.get("/static/style.css")
            #expect(css.text.contains("@media print"))
        }
    }

    @Test(arguments: StackStore.all) func unknownOrMalformedPrimaryKeyIsA404Page(_ store: StackStore) async throws {
        try await withDashboard(on: store) { app in
            let visitor = app.visitor()
            for path in ["/clients/99999", "/clients/abc", "/invoices/99999", "/clients/99999/edit", "/invoices/0/delete"] {
                let response = try await visitor.get(path)
                #expect(response.status == 404, "\(path)")
                #expect(response.text.contains("There is no"), "\(path)")
            }
            #expect(try await visitor.get("/clients/99999.json").status == 404)
        }
    }

    @Test(arguments: StackStore.all) func csvExportHasTheFilteredList(_ store: StackStore) async throws {
        try await withDashboard(on: store) { app in
            let csv = try await app.visitor().get("/invoices.csv?currency=EUR")
            #expect(csv.status == 200)
            #expect(csv.header("Content-Type") == "text/csv; charset=utf-8")
            let lines = csv.text.split(separator: "\r\n")
            #expect(lines.count == 3)
            #expect(lines.dropFirst().allSatisfy { $0.contains(",EUR,") })
        }
    }
}
