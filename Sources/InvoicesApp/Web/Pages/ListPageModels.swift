import Foundation
import WebServer

/// A sortable column header: its label, the link that sorts by it, and the current
/// direction (`aria-sort`) when the list is sorted by it.
struct ColumnHeader: Sendable {
    let label: String
    let link: String
    /// `ascending`, `descending` or `none`.
    let ariaSort: String
    /// ▲ or ▼ on the sorted column; nil on the others.
    let arrow: String?
}

/// The pager under a list: "51–100 of 2,000", previous and next links.
struct Pager: Sendable {
    let first: Int
    let last: Int
    let total: Int
    let page: Int
    let pageCount: Int
    let previousLink: String?
    let nextLink: String?

    init<Item>(_ page: Page<Item>, link: (Int) -> String) {
        first = page.firstIndex
        last = page.lastIndex
        total = page.totalCount
        self.page = page.page
        pageCount = page.pageCount
        previousLink = page.hasPrevious ? link(page.page - 1) : nil
        nextLink = page.hasNext ? link(page.page + 1) : nil
    }
}

/// A path with a query string built from items (nil values and empty lists leave it out).
func link(_ path: String, _ items: [URLQueryItem]) -> String {
    guard !items.isEmpty else { return path }
    var components = URLComponents()
    components.queryItems = items
    // `+` is a space in form-encoded queries: encode it so it round-trips.
    let query = (components.percentEncodedQuery ?? "").replacingOccurrences(of: "+", with: "%2B")
    return path + "?" + query
}

/// One row of the client list.
struct ClientRow: Sendable {
    let id: Int64
    let name: String
    let email: String
    let number: String
    let city: String
    let country: String
    let created: String
    let beingEdited: Bool

    init(_ client: ClientSummary, beingEdited: Bool) {
        id = client.id
        name = client.name
        email = client.email ?? ""
        number = client.number ?? ""
        city = client.city ?? ""
        country = client.country ?? ""
        created = CalendarDay(client.createdAt).description
        self.beingEdited = beingEdited
    }
}

/// `/clients`: the search, the table and the pager.
struct ClientListPage: Sendable {
    /// Nil without a search (an empty string would count as true in a section).
    let search: String?
    let columns: [ColumnHeader]
    let rows: [ClientRow]
    let isEmpty: Bool
    let pager: Pager
    let jsonLink: String
    /// The same list, every page, as `/clients.csv`.
    let csvLink: String

    init(_ page: Page<ClientSummary>, query: ClientQuery, beingEdited: Set<Int64>) {
        search = query.list.search
        let list = query.list
        columns = ClientSortKey.allCases.map { key in
            let sorted = list.sort == key
            return ColumnHeader(
                label: Self.label(key), link: link("/clients", ClientQuery.with(list.sorted(by: key)).queryItems),
                ariaSort: sorted ? (list.descending ? "descending" : "ascending") : "none",
                arrow: sorted ? (list.descending ? "▼" : "▲") : nil)
        }
        rows = page.items.map { ClientRow($0, beingEdited: beingEdited.contains($0.id)) }
        isEmpty = page.items.isEmpty
        pager = Pager(page) { link("/clients", ClientQuery.with(list.atPage($0)).queryItems) }
        jsonLink = link("/clients.json", query.queryItems)
        csvLink = link("/clients.csv", query.queryItems.filter { $0.name != "page" })
    }

    static func label(_ key: ClientSortKey) -> String {
        switch key {
        case .name: "Name"
        case .email: "Email"
        case .number: "Number"
        case .city: "City"
        case .country: "Country"
        case .createdAt: "Created"
        }
    }
}

extension ClientQuery {
    /// A query with these list parameters.
    static func with(_ list: ListParameters<ClientSortKey>) -> ClientQuery {
        var query = ClientQuery()
        query.list = list
        return query
    }
}

/// One row of an invoice table (the list, a client's page).
struct InvoiceRow: Sendable {
    let id: Int64
    let identifier: String
    let clientID: Int64
    let clientName: String
    /// Formatted only when a template asks for it (one of the two forms a table shows).
    let money: Money
    /// With its currency code ("1,234.50 EUR"), for tables without a currency column.
    var amount: String { money.formatted }
    /// Without the code ("1,234.50"), beside the currency column of the invoice list.
    var amountWithoutCurrency: String { money.formattedAmount }
    let currencyCode: String
    let status: String
    let isOverdue: Bool
    let issued: String
    let due: String
    let beingEdited: Bool

    init(_ invoice: InvoiceSummary, beingEdited: Bool) {
        id = invoice.id
        identifier = invoice.number
        clientID = invoice.clientID
        clientName = invoice.clientName
        money = invoice.amount
        currencyCode = invoice.amount.currency
        status = invoice.displayStatus
        isOverdue = invoice.isOverdue
        issued = invoice.issueDate.description
        due = invoice.dueDate.description
        self.beingEdited = beingEdited
    }
}

/// An option of a `<select>`.
struct SelectOption: Sendable {
    let value: String
    let label: String
    let selected: Bool
}

/// `/invoices`: the filters, the table, the pager.
struct InvoiceListPage: Sendable {
    let search: String
    let statuses: [SelectOption]
    /// The currency filter's `<option>`s, rendered (``currencyOptions(selected:templates:)``).
    let currencyOptions: String
    let client: String
    let from: String
    let to: String
    let columns: [ColumnHeader]
    let rows: [InvoiceRow]
    let isEmpty: Bool
    let pager: Pager
    let jsonLink: String
    let csvLink: String
    /// Per currency, the whole filtered list's totals (never added across currencies).
    let totals: [TotalRow]
    let hasTotals: Bool

    struct TotalRow: Sendable {
        let currency: String
        let count: Int
        let amount: String
        let paid: String
        let outstanding: String
    }

    init(_ page: Page<InvoiceSummary>, query: InvoiceQuery, beingEdited: Set<Int64>, totals: [InvoiceListTotal] = [],
         currencyOptions: String) {
        self.totals = totals.map {
            TotalRow(currency: $0.currency, count: $0.count, amount: $0.amount.formatted, paid: $0.paid.formatted,
                     outstanding: $0.outstanding.formatted)
        }
        hasTotals = !totals.isEmpty
        search = query.list.search ?? ""
        statuses = [SelectOption(value: "", label: "Any status", selected: query.status == nil)]
            + InvoiceStatusFilter.allCases.map {
                SelectOption(value: $0.rawValue, label: $0.rawValue.capitalized, selected: query.status == $0)
            }
        self.currencyOptions = currencyOptions
        client = query.clientID.map(String.init) ?? ""
        from = query.issuedFrom?.description ?? ""
        to = query.issuedThrough?.description ?? ""
        let list = query.list
        columns = InvoiceSortKey.allCases.map { key in
            let sorted = list.sort == key
            var sortedQuery = query
            sortedQuery.list = list.sorted(by: key)
            return ColumnHeader(
                label: Self.label(key), link: link("/invoices", sortedQuery.queryItems),
                ariaSort: sorted ? (list.descending ? "descending" : "ascending") : "none",
                arrow: sorted ? (list.descending ? "▼" : "▲") : nil)
        }
        rows = page.items.map { InvoiceRow($0, beingEdited: beingEdited.contains($0.id)) }
        isEmpty = page.items.isEmpty
        pager = Pager(page) { number in
            var paged = query
            paged.list = list.atPage(number)
            return link("/invoices", paged.queryItems)
        }
        jsonLink = link("/invoices.json", query.queryItems)
        csvLink = link("/invoices.csv", query.queryItems.filter { $0.name != "page" })
    }

    /// The currency filter's options, `selected` (a code, or nil for any) marked: every
    /// currency one can invoice in, about 170, rendered from `partials/currency-options`
    /// once per selection and kept (a page rendering them itself spent as long on them as
    /// on its 50 rows).
    static func currencyOptions(selected: String?, templates: TemplateRenderer) throws(TemplateRenderer.Error) -> String {
        // A code no option has (the query's own, unchecked) selects none, as any other such.
        let known = selected.flatMap { code in Currency.invoiceable.contains { $0.code == code } ? code : nil }
        let key = selected == nil ? "" : known ?? "-"
        return try templates.fragment("partials/currency-options", ["options": currencyChoices(selected: selected)], key: key)
    }

    static func currencyChoices(selected: String?) -> [SelectOption] {
        [SelectOption(value: "", label: "Any currency", selected: selected == nil)]
            + Currency.invoiceable.map { SelectOption(value: $0.code, label: $0.code, selected: selected == $0.code) }
    }

    static func label(_ key: InvoiceSortKey) -> String {
        switch key {
        case .identifier: "Invoice"
        case .client: "Client"
        case .amount: "Amount"
        case .currency: "Currency"
        case .status: "Status"
        case .issueDate: "Issued"
        case .dueDate: "Due"
        }
    }
}
