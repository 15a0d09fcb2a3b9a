import Foundation

/// The columns the client list sorts by; raw values are the `sort` query values.
public enum ClientSortKey: String, CaseIterable, Sendable, Hashable, Codable {
    case name, email, number, city, country
    case createdAt = "created"
}

/// What the client list shows: `/clients?q=&sort=&page=`.
///
/// The search matches name, email and number, case-insensitively (ASCII letters fold in
/// the store).
public struct ClientQuery: Sendable, Hashable {
    public var list: ListParameters<ClientSortKey>

    public init(search: String? = nil, sort: ClientSortKey = .name, descending: Bool = false,
                page: Int = 1, pageSize: Int = ListParameters<ClientSortKey>.defaultPageSize) {
        list = ListParameters(search: search, sort: sort, descending: descending, page: page, pageSize: pageSize)
    }

    /// From a query string's parameters (`q`, `sort`, `page`, `page_size`).
    public init(parameters: [String: String]) {
        list = ListParameters(parameters: parameters, defaultSort: .name)
    }

    /// The non-default parameters, for links that keep the list's state.
    public var queryItems: [URLQueryItem] { list.queryItems(defaultSort: .name) }
}
