import Foundation

/// The columns the invoice list sorts by; raw values are the `sort` query values.
public enum InvoiceSortKey: String, CaseIterable, Sendable, Hashable, Codable {
    case identifier, client, amount, currency, status
    case issueDate = "issued"
    case dueDate = "due"
}

/// What the invoice list shows: `/invoices?q=&status=&currency=&client=&from=&to=&sort=&page=`.
///
/// The search matches identifier, notes and client name, case-insensitively. The date range
/// applies to the issue date, both ends included.
public struct InvoiceQuery: Sendable, Hashable {
    public var list: ListParameters<InvoiceSortKey>
    public var status: InvoiceStatusFilter?
    /// An ISO 4217 code, upper case.
    public var currency: String?
    /// A client's primary key.
    public var clientID: Int64?
    public var issuedFrom: CalendarDay?
    public var issuedThrough: CalendarDay?

    /// Newest first by default.
    public static let defaultSort = InvoiceSortKey.issueDate

    public init(search: String? = nil, status: InvoiceStatusFilter? = nil, currency: String? = nil,
                clientID: Int64? = nil, issuedFrom: CalendarDay? = nil, issuedThrough: CalendarDay? = nil,
                sort: InvoiceSortKey = Self.defaultSort, descending: Bool = true, page: Int = 1,
                pageSize: Int = ListParameters<InvoiceSortKey>.defaultPageSize) {
        list = ListParameters(search: search, sort: sort, descending: descending, page: page, pageSize: pageSize)
        self.status = status
        self.currency = FieldInput.optionalText(currency)?.uppercased()
        self.clientID = clientID
        self.issuedFrom = issuedFrom
        self.issuedThrough = issuedThrough
    }

    /// From a query string's parameters: those of ``ClientQuery`` plus `status`, `currency`,
    /// `client` (a primary key), `from` and `to` (`YYYY-MM-DD`). Unreadable values are
    /// ignored, so an edited URL still opens a list. Without `sort`, newest first.
    public init(parameters: [String: String]) {
        list = ListParameters(parameters: parameters, defaultSort: Self.defaultSort, defaultDescending: true)
        status = parameters["status"].flatMap { InvoiceStatusFilter(rawValue: $0.lowercased()) }
        currency = FieldInput.optionalText(parameters["currency"])?.uppercased()
        clientID = parameters["client"].flatMap { Int64($0) }.flatMap { $0 > 0 ? $0 : nil }
        issuedFrom = parameters["from"].flatMap { CalendarDay(iso: $0) }
        issuedThrough = parameters["to"].flatMap { CalendarDay(iso: $0) }
    }

    /// Whether any filter or search narrows the list.
    public var isFiltered: Bool {
        list.search != nil || status != nil || currency != nil || clientID != nil
            || issuedFrom != nil || issuedThrough != nil
    }

    /// The non-default parameters, filters first, for links that keep the list's state.
    public var queryItems: [URLQueryItem] {
        var items: [URLQueryItem] = []
        if let status { items.append(URLQueryItem(name: "status", value: status.rawValue)) }
        if let currency { items.append(URLQueryItem(name: "currency", value: currency)) }
        if let clientID { items.append(URLQueryItem(name: "client", value: String(clientID))) }
        if let issuedFrom { items.append(URLQueryItem(name: "from", value: issuedFrom.description)) }
        if let issuedThrough { items.append(URLQueryItem(name: "to", value: issuedThrough.description)) }
        return items + list.queryItems(defaultSort: Self.defaultSort, defaultDescending: true)
    }
}
