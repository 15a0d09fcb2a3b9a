/// One page of a list, with the total count over all pages.
public struct Page<Item: Sendable & Hashable & Codable>: Sendable, Hashable, Codable {
    public let items: [Item]
    /// How many items match, on all pages.
    public let totalCount: Int
    /// 1-based; clamped to the last page when the request asked for a page past it.
    public let page: Int
    public let pageSize: Int

    public init(items: [Item], totalCount: Int, page: Int, pageSize: Int) {
        self.items = items
        self.totalCount = totalCount
        self.page = page
        self.pageSize = pageSize
    }

    /// At least 1 (an empty list has one, empty, page).
    public var pageCount: Int { Self.pageCount(totalCount: totalCount, pageSize: pageSize) }
    public var hasPrevious: Bool { page > 1 }
    public var hasNext: Bool { page < pageCount }
    /// 1-based position of the first item on this page (0 when empty): "51–100 of 2,000".
    public var firstIndex: Int { items.isEmpty ? 0 : (page - 1) * pageSize + 1 }
    public var lastIndex: Int { items.isEmpty ? 0 : firstIndex + items.count - 1 }

    static func pageCount(totalCount: Int, pageSize: Int) -> Int {
        max(1, (totalCount + max(1, pageSize) - 1) / max(1, pageSize))
    }

    private enum CodingKeys: String, CodingKey { case items, totalCount, page, pageSize, pageCount }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        items = try c.decode([Item].self, forKey: .items)
        totalCount = try c.decode(Int.self, forKey: .totalCount)
        page = try c.decode(Int.self, forKey: .page)
        pageSize = try c.decode(Int.self, forKey: .pageSize)
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(items, forKey: .items)
        try c.encode(totalCount, forKey: .totalCount)
        try c.encode(page, forKey: .page)
        try c.encode(pageSize, forKey: .pageSize)
        try c.encode(pageCount, forKey: .pageCount)
    }
}
