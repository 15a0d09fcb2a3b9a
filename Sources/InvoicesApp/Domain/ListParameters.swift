import Foundation

/// What list pages share in their query string: a search, a sort column and direction, and
/// a page. `sort=name` sorts ascending, `sort=-name` descending (as in `?sort=-amount`).
public struct ListParameters<SortKey: RawRepresentable & CaseIterable & Sendable & Hashable>: Sendable, Hashable
where SortKey.RawValue == String {
    /// Case-insensitive search text; nil or blank for none.
    public var search: String?
    public var sort: SortKey
    public var descending: Bool
    /// 1-based.
    public var page: Int
    /// Items per page, 1 to ``maximumPageSize``.
    public var pageSize: Int

    public static var defaultPageSize: Int { 50 }
    public static var maximumPageSize: Int { 500 }

    public init(search: String? = nil, sort: SortKey, descending: Bool = false, page: Int = 1,
                pageSize: Int = Self.defaultPageSize) {
        self.search = FieldInput.optionalText(search)
        self.sort = sort
        self.descending = descending
        self.page = max(1, page)
        self.pageSize = min(Self.maximumPageSize, max(1, pageSize))
    }

    /// Reads `q`, `sort`, `page` and `page_size`; missing or unreadable values keep their
    /// defaults (a bookmarked URL with an old sort column still opens).
    public init(parameters: [String: String], defaultSort: SortKey, defaultDescending: Bool = false) {
        var sortKey = defaultSort, descending = defaultDescending
        if var text = parameters["sort"] {
            let wantsDescending = text.hasPrefix("-")
            if wantsDescending { text.removeFirst() }
            if let key = SortKey(rawValue: text) { sortKey = key; descending = wantsDescending }
        }
        self.init(search: parameters["q"], sort: sortKey, descending: descending,
                  page: parameters["page"].flatMap { Int($0) } ?? 1,
                  pageSize: parameters["page_size"].flatMap { Int($0) } ?? Self.defaultPageSize)
    }

    /// The parameters that differ from the defaults, in a fixed order, for links that keep
    /// the list's state.
    public func queryItems(defaultSort: SortKey, defaultDescending: Bool = false) -> [URLQueryItem] {
        var items: [URLQueryItem] = []
        if let search { items.append(URLQueryItem(name: "q", value: search)) }
        if sort != defaultSort || descending != defaultDescending {
            items.append(URLQueryItem(name: "sort", value: (descending ? "-" : "") + sort.rawValue))
        }
        if page != 1 { items.append(URLQueryItem(name: "page", value: String(page))) }
        if pageSize != Self.defaultPageSize { items.append(URLQueryItem(name: "page_size", value: String(pageSize))) }
        return items
    }

    /// The same list sorted by `key`: ascending, or the other direction when already sorted
    /// by it (what a click on a column header does). Back to page 1.
    public func sorted(by key: SortKey) -> Self {
        var copy = self
        copy.descending = key == sort ? !descending : false
        copy.sort = key
        copy.page = 1
        return copy
    }

    /// The same list at another page.
    public func atPage(_ page: Int) -> Self {
        var copy = self
        copy.page = max(1, page)
        return copy
    }
}
