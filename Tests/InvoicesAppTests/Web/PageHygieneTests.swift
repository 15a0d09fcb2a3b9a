import Foundation
import Testing
@testable import InvoicesApp

/// What a user (or the W3C checker) notices on every page: ids used once, required selects
/// that start with an empty choice, error pages in the site's chrome and JSON errors for the
/// `.json` twins.
@Suite struct PageHygieneTests {
    /// The `id` values of a page that appear more than once.
    private func repeatedIDs(_ html: String) -> [String] {
        let ids = html.matches(of: /\sid="([^"]*)"/).map { String($0.1) }
        return Dictionary(grouping: ids, by: { $0 }).filter { $0.value.count > 1 }.keys.sorted()
    }

    @Test func noPageUsesAnIDTwiceAndRequiredSelectsStartEmpty() async throws {
        try await withDashboard { app in
            let visitor = app.visitor()
            let invoiceForm = try await visitor.openForm("/invoices/new").page
            let clientForm = try await visitor.openForm("/clients/new").page
            var pages = [("/invoices/new", invoiceForm), ("/clients/new", clientForm)]
            for path in ["/clients", "/invoices", "/contexts", "/docs", "/docs/nested-contexts", "/import"] {
                pages.append((path, try await visitor.get(path)))
            }
            for (path, page) in pages {
                #expect(page.status == 200, "\(path)")
                #expect(repeatedIDs(page.text).isEmpty, "\(path) repeats \(repeatedIDs(page.text))")
            }
            let selects = invoiceForm.text.matches(of: /<select[^>]*\srequired[^>]*>(<option[^>]*>)/)
            #expect(selects.count >= 2, "the invoice form's client, currency and status")
            for select in selects {
                #expect(select.1.contains("value=\"\""), "\(select.0)")
            }
        }
    }

    @Test func errorsAreHTMLPagesInTheSiteChromeAndJSONForTwins() async throws {
        try await withDashboard { app in
            let visitor = app.visitor()
            let missing = try await visitor.get("/no/such/page")
            #expect(missing.status == 404)
            #expect(missing.header("Content-Type")?.hasPrefix("text/html") == true)
            #expect(missing.text.contains("<nav aria-label=\"Sections\">"))
            #expect(missing.text.contains("Back to the clients"))

            let wrongMethod = try await visitor.send("DELETE", "/clients")
            #expect(wrongMethod.status == 405)
            #expect(wrongMethod.header("Allow")?.contains("GET") == true)
            #expect(wrongMethod.text.contains("<nav aria-label=\"Sections\">"))

            let twin = try await visitor.get("/no/such/page.json")
            #expect(twin.status == 404)
            #expect(twin.header("Content-Type")?.hasPrefix("application/json") == true)
            let decoded = try JSONDecoder().decode([String: String].self, from: twin.body)
            #expect(decoded["error"]?.isEmpty == false)
        }
    }
}
