import Foundation
import ObjectGraph

/// The reads pages make, each returning `Sendable` values built inside the context's block.
///
/// Call them on the context's queue; the dashboard calls them in a reading context, a private
/// child of main made for the one read, so that their SQL runs off the main queue:
/// ```swift
/// let reader = ManagedObjectContext(.privateQueue, parent: main)
/// let page = try await reader.perform { try reader.clientPage(ClientQuery(search: "acme")) }
/// ```
/// (``InvoicesStack`` has `async` wrappers that do exactly that.)
///
/// Cost, by design: a list page runs two bounded queries, a `COUNT` and a `LIMIT`ed fetch
/// (`pageSize` rows), plus for invoices at most one look-up per distinct client on the page
/// (by primary key, usually answered by the row cache). An unfiltered list counts without a
/// `WHERE`. The default orders read an index and stop after one page: clients by name,
/// invoices by issue date (then identifier, sorted within each day), or by identifier (the
/// unique index). A status filter counts on the compound index (status, issue date) alone and,
/// in the default order, reads its page from it and stops (sorting only the invoices of one
/// day by identifier), instead of sorting every matching row. Other columns have no index, so
/// SQLite sorts the matching rows with a top-N sorter (one pass over the table). A list
/// filtered by client walks the client's invoices (one indexed query on the foreign key) and
/// filters, sorts and pages them in memory. A search (up to ``keptSearchMatches`` matches)
/// runs once instead of twice: one query gathers its matches' IDs in the list's order (their
/// number is the count), and the page is their window, fetched by key; the stack keeps an
/// invoice search's IDs for its other pages. Pages are kept once rendered (``PageCache``), so
/// these queries run once per change of the data, not once per request.
extension ManagedObjectContext {
    // MARK: Clients

    /// One page of clients, searched and sorted as `query` says.
    /// - Throws: `FetchError` when the store cannot be read.
    public func clientPage(_ query: ClientQuery) throws -> Page<ClientSummary> {
        let list = query.list
        var request = FetchRequest<Client>(predicate: Self.clientPredicate(search: list.search),
                                           sortBy: Self.clientSort(list.sort, descending: list.descending))
        // One search, not two (a count and a page): its matches' IDs, then their window.
        if list.search != nil, let matches = try gatheredMatches(request) {
            let (page, clients) = try window(of: matches, list.page, list.pageSize, sortBy: request.sortDescriptors)
            return Page(items: clients.map(ClientSummary.init), totalCount: matches.count, page: page, pageSize: list.pageSize)
        }
        let total = try count(for: request)
        let page = min(list.page, Page<ClientSummary>.pageCount(totalCount: total, pageSize: list.pageSize))
        request.fetchLimit = list.pageSize
        request.fetchOffset = (page - 1) * list.pageSize
        let items = try fetch(request).map(ClientSummary.init)
        return Page(items: items, totalCount: total, page: page, pageSize: list.pageSize)
    }

    /// Every client of a list, searched and sorted as `query` says, without paging.
    func listedClients(_ query: ClientQuery) throws -> [Client] {
        try fetch(FetchRequest<Client>(predicate: Self.clientPredicate(search: query.list.search),
                                       sortBy: Self.clientSort(query.list.sort, descending: query.list.descending)))
    }

    /// The client with this primary key and its invoices; nil when there is none.
    public func clientDetail(id: Int64, today: CalendarDay = .today) throws -> ClientDetail? {
        guard let client = try existingObject(Client.self, primaryKey: id) else { return nil }
        return ClientDetail(client, today: today)
    }

    // MARK: Invoices

    /// One page of invoices, searched, filtered and sorted as `query` says. "Overdue" is
    /// decided against `today`.
    /// - Parameters:
    ///   - knownTotal: how many invoices match, when the caller has counted them already (the
    ///     list's totals per currency); counted here otherwise.
    ///   - allInvoices: how many invoices there are, when known: with it, a search for a word
    ///     that many invoices contain walks the list's order instead of gathering every match
    ///     (``walksSortOrder(matches:of:through:)``).
    /// - Throws: `FetchError` when the store cannot be read.
    public func invoicePage(_ query: InvoiceQuery, today: CalendarDay = .today, knownTotal: Int? = nil,
                            allInvoices: Int? = nil) throws -> Page<InvoiceSummary> {
        var matches: [ObjectID]?
        return try invoicePage(query, today: today, knownTotal: knownTotal, allInvoices: allInvoices, matches: &matches)
    }

    /// The same, for a search whose ordered matches may be known (`matches`, kept from an
    /// earlier page at the same generation): its page is then a window of them. A search
    /// that gathers its matches through the substring index (rather than walking the list's
    /// order) gathers only their IDs, all of them, and leaves them in `matches` for the
    /// caller to keep, so that its other pages need neither the search nor the sort again
    /// (up to ``keptSearchMatches`` of them; a search with more is counted and paged as any list).
    func invoicePage(_ query: InvoiceQuery, today: CalendarDay, knownTotal: Int?, allInvoices: Int?,
                     matches: inout [ObjectID]?) throws -> Page<InvoiceSummary> {
        let list = query.list
        let predicate = Self.invoicePredicate(query, today: today)
        let sort = Self.invoiceSort(list.sort, descending: list.descending)
        if let clientID = query.clientID {
            return try invoicePage(ofClient: clientID, predicate: predicate, sort: sort, list: list, today: today)
        }
        if let matches { return try invoicePage(of: matches, sort: sort, list: list, today: today) }
        var request = FetchRequest<Invoice>(predicate: predicate, sortBy: sort)
        // A search known to have more matches than are kept is not gathered only to be dropped.
        if list.search != nil && !walks(list, matches: knownTotal, of: allInvoices)
            && knownTotal.map({ $0 <= Self.keptSearchMatches }) ?? true, let found = try gatheredMatches(request) {
            matches = found
            return try invoicePage(of: found, sort: sort, list: list, today: today)
        }
        let total = try knownTotal ?? count(for: request)
        // A row shows its client's name: the page's clients in one query, not one each.
        request.relationshipKeyPathsForPrefetching = [\Invoice.client]
        let page = min(list.page, Page<InvoiceSummary>.pageCount(totalCount: total, pageSize: list.pageSize))
        if list.search != nil && walks(list, matches: total, of: allInvoices) { request.readsSubstringIndexes = false }
        request.fetchLimit = list.pageSize
        request.fetchOffset = (page - 1) * list.pageSize
        let items = try fetch(request).map { InvoiceSummary($0, today: today) }
        return Page(items: items, totalCount: total, page: page, pageSize: list.pageSize)
    }

    /// The most matches of a search gathered as IDs and kept (800 KB of them): a word found in
    /// more invoices is counted, and its pages walk the list's order (the word is frequent:
    /// a page is found after a few hundred invoices) or read their window of the matches
    /// through the index, as before matches were kept. (At 1,000,000 invoices a word in
    /// 28,500 of them, paged by walking, cost 30–40 ms a page; as a window, 3 ms.)
    static let keptSearchMatches = 50_000

    /// Whether the page `list` asks for of a search with `matches` (when counted) among `all`
    /// invoices is found by walking the list's order (``walksSortOrder(matches:of:through:)``)
    /// rather than by gathering the matches' IDs.
    private func walks(_ list: ListParameters<InvoiceSortKey>, matches: Int?, of all: Int?) -> Bool {
        guard let matches, let all, [.issueDate, .identifier].contains(list.sort) else { return false }
        let page = min(list.page, Page<InvoiceSummary>.pageCount(totalCount: matches, pageSize: list.pageSize))
        return Self.walksSortOrder(matches: matches, of: all, through: page * list.pageSize)
    }

    /// The page `list` asks for of a search's ordered `matches`: its window of IDs, fetched in
    /// one query (the same order, so the window keeps its order), clients prefetched.
    private func invoicePage(of matches: [ObjectID], sort: [SortDescriptor<Invoice>], list: ListParameters<InvoiceSortKey>,
                             today: CalendarDay) throws -> Page<InvoiceSummary> {
        let (page, invoices) = try window(of: matches, list.page, list.pageSize, sortBy: sort, prefetching: [\Invoice.client])
        return Page(items: invoices.map { InvoiceSummary($0, today: today) }, totalCount: matches.count, page: page,
                    pageSize: list.pageSize)
    }

    /// The IDs of a search's matches, all of them in `request`'s order; nil when there are
    /// more than ``keptSearchMatches`` (the caller then counts and pages as for any list).
    private func gatheredMatches<T: ManagedObject>(_ request: FetchRequest<T>) throws -> [ObjectID]? {
        var gathering = request
        gathering.fetchLimit = Self.keptSearchMatches + 1
        let found = try fetchObjectIDs(gathering)
        return found.count <= Self.keptSearchMatches ? found : nil
    }

    /// The page asked for (the last one past the end) of ordered `matches`, and its objects:
    /// its window of IDs fetched in one query, in the same order (so the window keeps its order).
    private func window<T: ManagedObject>(of matches: [ObjectID], _ page: Int, _ pageSize: Int,
                                          sortBy sort: [SortDescriptor<T>],
                                          prefetching: [PartialKeyPath<T>] = []) throws -> (page: Int, objects: [T]) {
        let page = min(page, Page<ObjectID>.pageCount(totalCount: matches.count, pageSize: pageSize))
        let start = min(matches.count, (page - 1) * pageSize)
        let window = Array(matches[start..<min(matches.count, start + pageSize)])
        guard !window.isEmpty else { return (page, []) }
        var request = FetchRequest<T>(predicate: #Predicate { window.contains($0.objectID) }, sortBy: sort)
        request.relationshipKeyPathsForPrefetching = prefetching
        return (page, try fetch(request))
    }

    /// The invoice with this primary key; nil when there is none.
    public func invoiceDetail(id: Int64, today: CalendarDay = .today) throws -> InvoiceDetail? {
        guard let invoice = try existingObject(Invoice.self, primaryKey: id) else { return nil }
        return InvoiceDetail(invoice, today: today)
    }

    /// Every invoice of the list, filters and sort applied, without paging (for the CSV
    /// export of the current list).
    public func invoiceSummaries(_ query: InvoiceQuery, today: CalendarDay = .today) throws -> [InvoiceSummary] {
        try listedInvoices(query, today: today).map { InvoiceSummary($0, today: today) }
    }

    /// The invoices of a list, filters and sort applied, without paging, as objects (the
    /// CSV export reads their lines and payments).
    func listedInvoices(_ query: InvoiceQuery, today: CalendarDay = .today) throws -> [Invoice] {
        let predicate = Self.invoicePredicate(query, today: today)
        let sort = Self.invoiceSort(query.list.sort, descending: query.list.descending)
        if let clientID = query.clientID {
            return try invoices(ofClient: clientID, predicate: predicate, sort: sort)
        }
        var request = FetchRequest<Invoice>(predicate: predicate, sortBy: sort)
        request.relationshipKeyPathsForPrefetching = [\Invoice.client]
        return try fetch(request)
    }

    /// A client's invoices, filtered, sorted and paged in memory: one query on the foreign key
    /// instead of a predicate ObjectGraph cannot express (a to-one compared with an object).
    private func invoicePage(ofClient clientID: Int64, predicate: Predicate<Invoice>?,
                             sort: [SortDescriptor<Invoice>], list: ListParameters<InvoiceSortKey>,
                             today: CalendarDay) throws -> Page<InvoiceSummary> {
        let invoices = try invoices(ofClient: clientID, predicate: predicate, sort: sort)
        let total = invoices.count
        let page = min(list.page, Page<InvoiceSummary>.pageCount(totalCount: total, pageSize: list.pageSize))
        let start = min(total, (page - 1) * list.pageSize)
        let end = min(total, start + list.pageSize)
        let items = invoices[start..<end].map { InvoiceSummary($0, today: today) }
        return Page(items: Array(items), totalCount: total, page: page, pageSize: list.pageSize)
    }

    /// A client's invoices, filtered and sorted in memory (ties by primary key).
    private func invoices(ofClient clientID: Int64, predicate: Predicate<Invoice>?,
                          sort: [SortDescriptor<Invoice>]) throws -> [Invoice] {
        guard let client = try existingObject(Client.self, primaryKey: clientID) else { return [] }
        var invoices = Array(client.invoices)
        if let predicate {
            invoices = invoices.filter { (try? predicate.evaluate($0)) ?? false }
        }
        invoices.sort { a, b in
            for descriptor in sort {
                switch descriptor.compare(a, b) {
                case .orderedAscending: return true
                case .orderedDescending: return false
                case .orderedSame: continue
                }
            }
            return (a.objectID.primaryKey ?? .max) < (b.objectID.primaryKey ?? .max)
        }
        return invoices
    }

    // MARK: Building requests

    /// Looks up an object by primary key; nil when the row does not exist.
    func existingObject<T: ManagedObject>(_ type: T.Type, primaryKey: Int64) throws -> T? {
        guard let id = persistentStoreCoordinator.managedObjectID(for: type, primaryKey: primaryKey) else { return nil }
        do {
            return try existingObject(with: id, as: type)
        } catch ContextError.objectNotFound {
            return nil
        }
    }

    static func clientPredicate(search: String?) -> Predicate<Client>? {
        guard let term = search else { return nil }
        return #Predicate<Client> { client in
            client.name.localizedStandardContains(term)
                || client.email?.localizedStandardContains(term) == true
                || client.number?.localizedStandardContains(term) == true
        }
    }

    /// Text sorts by code point (upper case before lower case). ObjectGraph would sort
    /// case-insensitively (`COLLATE NOCASE`) for any string comparator other than `.lexical`,
    /// but on Linux `String.StandardComparator` offers only `.lexical`.
    static func clientSort(_ key: ClientSortKey, descending: Bool) -> [SortDescriptor<Client>] {
        let order: SortOrder = descending ? .reverse : .forward
        switch key {
        case .name: return [SortDescriptor(\Client.name, order: order)]
        case .email: return [SortDescriptor(\Client.email, order: order)]
        case .number: return [SortDescriptor(\Client.number, order: order)]
        case .city: return [SortDescriptor(\Client.city, order: order), SortDescriptor(\Client.name)]
        case .country: return [SortDescriptor(\Client.country, order: order), SortDescriptor(\Client.name)]
        case .createdAt: return [SortDescriptor(\Client.createdAt, order: order)]
        }
    }

    /// The filters and search the query turns on, as one predicate (see
    /// ``PredicateComposition``); nil when none is on.
    /// Whether a page of a search is cheaper found by walking the list's sorted index and
    /// testing each invoice until `through` of them matched, than through the substring
    /// index, which gathers all `matches` to sort them. Matches spread evenly, the walk reads
    /// about `through × all / matches` invoices: it wins when that is well under `matches`
    /// (a word in a third of 100,000 invoices: 750 invoices walked for page 5 against 33,000
    /// gathered; a client's name in ten of them: the index).
    static func walksSortOrder(matches: Int, of all: Int, through: Int) -> Bool {
        matches > 0 && through.multipliedReportingOverflow(by: all).partialValue < matches * matches / 2
    }

    static func invoicePredicate(_ query: InvoiceQuery, today: CalendarDay) -> Predicate<Invoice>? {
        typealias P = PredicateComposition<Invoice>
        var parts: [P.Part] = []
        if let term = query.list.search {
            parts.append(P.any([P.contains(\Invoice.identifier, term), P.contains(\Invoice.notes, term),
                                P.contains(\Invoice.client, \Client.name, term)]))
        }
        if let status = query.status {
            parts.append(P.equal(\Invoice.status, status.status))
            if status == .overdue { parts.append(P.compare(\Invoice.dueDate, .lessThan, today.date)) }
        }
        if let currency = query.currency { parts.append(P.equal(\Invoice.currency, currency)) }
        if let from = query.issuedFrom { parts.append(P.compare(\Invoice.issueDate, .greaterThanOrEqual, from.date)) }
        if let through = query.issuedThrough {
            parts.append(P.compare(\Invoice.issueDate, .lessThan, through.adding(days: 1).date))
        }
        return P.all(parts)
    }

    static func invoiceSort(_ key: InvoiceSortKey, descending: Bool) -> [SortDescriptor<Invoice>] {
        let order: SortOrder = descending ? .reverse : .forward
        switch key {
        case .identifier: return [SortDescriptor(\Invoice.identifier, comparator: .lexical, order: order)]
        case .client: return [SortDescriptor(\Invoice.client?.name, order: order),
                              SortDescriptor(\Invoice.identifier, comparator: .lexical)]
        case .amount: return [SortDescriptor(\Invoice.amount, order: order),
                              SortDescriptor(\Invoice.identifier, comparator: .lexical)]
        case .currency: return [SortDescriptor(\Invoice.currency, comparator: .lexical, order: order),
                                SortDescriptor(\Invoice.identifier, comparator: .lexical)]
        case .status: return [SortDescriptor(\Invoice.status, order: order),
                              SortDescriptor(\Invoice.identifier, comparator: .lexical)]
        case .issueDate: return [SortDescriptor(\Invoice.issueDate, order: order),
                                 SortDescriptor(\Invoice.identifier, comparator: .lexical, order: order)]
        case .dueDate: return [SortDescriptor(\Invoice.dueDate, order: order),
                               SortDescriptor(\Invoice.identifier, comparator: .lexical)]
        }
    }
}
