import Foundation

/// A description of objects to fetch: an entity (the result type), a `#Predicate`, key-path
/// sort descriptors, and a window.
///
/// ```swift
/// let request = FetchRequest<Invoice>(
///     predicate: #Predicate { $0.status == "sent" && $0.amount > 100 },
///     sortBy: [SortDescriptor(\.dueDate)],
///     fetchLimit: 50)
/// let invoices = try context.fetch(request)
/// ```
///
/// The predicate is translated to SQL; for unsaved objects (and in child contexts) it is
/// also evaluated in memory, so results include pending changes.
public struct FetchRequest<Result: ManagedObject> {
    /// Which objects; nil for all.
    public var predicate: Predicate<Result>?
    /// The order; key paths to attributes, or through to-one relationships. Objects the keys
    /// find equal come by primary key, descending when the last key's order is `.reverse`
    /// (so an index over the keys gives the whole order in either direction).
    public var sortDescriptors: [SortDescriptor<Result>]
    /// At most this many results; nil for no limit.
    public var fetchLimit: Int?
    /// Skip this many results first.
    public var fetchOffset: Int
    /// Whether unsaved inserts, updates and deletes of the context count (default true).
    /// A child context always sees its ancestors' unsaved changes.
    public var includesPendingChanges: Bool = true
    /// Whether string sort keys ignore (ASCII) case: "acme" before "Zed". Foundation on Linux
    /// offers no case-insensitive `String.StandardComparator`, so this is the switch; in SQL
    /// it is `COLLATE NOCASE`, and in-memory sorts follow the same rule.
    public var sortsStringsCaseInsensitively: Bool = false
    /// Only objects whose searchable attributes (`@Attribute(.searchable)`) contain every
    /// word of the query: a full-text search through the store's FTS5 index, combined with
    /// the predicate (both must hold). Nil for no search. Unsaved objects are matched in
    /// memory by the index's rules (see ``SearchQuery``).
    public var searchQuery: SearchQuery?
    /// With a search, whether results come best match first (FTS5's bm25 rank), the sort
    /// descriptors only breaking ties; set it to false to order by the sort descriptors
    /// alone. Unsaved objects whose searchable text changed have no rank yet: those that
    /// match come before the stored ones, in the sort descriptors' order.
    public var sortsBySearchRank: Bool = true
    /// Whether case-insensitive substring tests of `.indexedForSubstringSearch` attributes
    /// find their candidate rows through the attribute's index (the default), or test each
    /// row the query reads. A term found in many rows is cheaper without the index when the
    /// order has an index of its own and the fetch has a limit: the query then walks that
    /// order and stops once the page is full, where the index gathers every match to sort
    /// them. The results are the same either way.
    public var readsSubstringIndexes: Bool = true
    /// To-one relationships whose destinations' rows are read with the results, one query per
    /// relationship for the whole result (Core Data's `relationshipKeyPathsForPrefetching`):
    /// reading `invoice.client.name` for fifty invoices then costs no query per invoice.
    /// Rows the context or the coordinator's row cache already has are not read again.
    public var relationshipKeyPathsForPrefetching: [PartialKeyPath<Result>] = []

    public init(predicate: Predicate<Result>? = nil, sortBy sortDescriptors: [SortDescriptor<Result>] = [],
                fetchLimit: Int? = nil, fetchOffset: Int = 0) {
        self.predicate = predicate
        self.sortDescriptors = sortDescriptors
        self.fetchLimit = fetchLimit
        self.fetchOffset = fetchOffset
    }
}

/// Why a fetch failed.
public enum FetchError: Error, CustomStringConvertible, Sendable {
    /// The result type is not an entity of the context's model.
    case unknownEntity(String)
    /// The predicate uses an expression ObjectGraph cannot translate to SQL.
    case untranslatablePredicate(String)
    /// A sort descriptor's key path does not name a stored property.
    case unsupportedSortKey(String)
    /// The request searches an entity that declares no searchable attribute.
    case notSearchable(String)
    /// A key path to prefetch does not name a to-one relationship of the result's entity.
    case unsupportedPrefetch(String)
    /// The store could not be read.
    case storeFailure(StoreError)

    public var description: String {
        switch self {
        case .unknownEntity(let name):
            return "\(name) is not an entity of this context's model."
        case .untranslatablePredicate(let detail):
            return "The predicate cannot be run by the store: \(detail)"
        case .unsupportedSortKey(let keyPath):
            return "Cannot sort by \(keyPath): sort by @Attribute properties, or through to-one relationships."
        case .notSearchable(let name):
            return "\(name) has no searchable attributes; declare the ones to search with @Attribute(.searchable)."
        case .unsupportedPrefetch(let keyPath):
            return "\(keyPath) cannot be prefetched: relationshipKeyPathsForPrefetching takes to-one relationships of the fetched entity (such as \\Invoice.client), one step each."
        case .storeFailure(let error):
            return "The store could not be read: \(error)"
        }
    }
}
