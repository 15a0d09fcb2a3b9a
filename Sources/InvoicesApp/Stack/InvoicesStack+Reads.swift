import Foundation
import ObjectGraph

/// The reads pages make, of the main context's state, as `async` calls returning `Sendable`
/// values.
///
/// Each runs in a reading context of its own: a private-queue child of main, made for the
/// one read and dropped after it. Its fetches, counts, aggregates and faults run their SQL on
/// a reader connection on that context's queue; they hop onto the main queue only to take
/// main's unsaved changes (and the values of objects main has registered), so a slow read
/// never holds the main queue, and reads of several visitors run at once on every core. A
/// read sees what main sees: its unsaved changes overlaid on the file. Rendering happens off
/// every queue, after the read.
extension InvoicesStack {
    /// How many blocks of nested contexts (page reads, forms) run at once: a few per core, so
    /// that a block waiting on main's queue or on the disk leaves its core to another, and no
    /// more, so that the others wait their turn in order rather than share the cores. With
    /// Dispatch's default of many at once, 32 visitors' reads shared two cores and a search
    /// that needed 5 ms of them took 150 ms; p99 of the distinct-reads mix fell from about
    /// 155 to 90 ms at the same throughput with four at once.
    static let concurrentNestedBlocks = max(4, 2 * ProcessInfo.processInfo.activeProcessorCount)

    /// Runs `body` in a new reading context, a private child of main that lives for this read.
    func read<Value: Sendable>(_ body: @escaping @Sendable (ManagedObjectContext) throws -> Value) async throws -> Value {
        let reader = ManagedObjectContext(.privateQueue, parent: main, name: "page read")
        return try await reader.perform { try body(reader) }
    }

    /// One page of the client list.
    public func clientPage(_ query: ClientQuery) async throws -> Page<ClientSummary> {
        return try await read { reader in try reader.clientPage(query) }
    }

    /// A client's page; nil when no client has this primary key.
    public func clientDetail(id: Int64, today: CalendarDay = .today) async throws -> ClientDetail? {
        return try await read { reader in try reader.clientDetail(id: id, today: today) }
    }

    /// One page of the invoice list. The list's count is read once per generation and
    /// kept for its other pages (``ListSummaryCache``).
    public func invoicePage(_ query: InvoiceQuery, today: CalendarDay = .today) async throws -> Page<InvoiceSummary> {
        let key = ListSummaryCache.Key(query, today: today)
        let generation = changes.current
        let known = listSummaries.summary(for: key, at: generation)?.knownCount
        let all = invoiceCount(at: generation, for: query)
        let search = SearchMatches(query, today: today, at: generation, in: listSummaries)
        let (page, allCount, matches) = try await read { reader throws -> (Page<InvoiceSummary>, Int?, [ObjectID]?) in
            let allCount = try all.read(in: reader)
            var matches = search.kept
            let page = try reader.invoicePage(query, today: today, knownTotal: known, allInvoices: allCount, matches: &matches)
            return (page, allCount, matches)
        }
        if known == nil { listSummaries.keep(count: page.totalCount, for: key, at: generation) }
        all.keep(allCount, in: listSummaries, at: generation)
        search.keep(matches, in: listSummaries)
        return page
    }

    /// One page of the invoice list and the whole list's totals per currency, read together:
    /// the totals' counts are the page's total count, so the list is not counted twice. The
    /// totals are read once per generation and kept for the list's other pages.
    public func invoiceListing(_ query: InvoiceQuery, today: CalendarDay = .today) async throws
        -> (page: Page<InvoiceSummary>, totals: [InvoiceListTotal]) {
        let key = ListSummaryCache.Key(query, today: today)
        let generation = changes.current
        let kept = listSummaries.summary(for: key, at: generation)?.totals
        let all = invoiceCount(at: generation, for: query)
        let search = SearchMatches(query, today: today, at: generation, in: listSummaries)
        let (page, totals, allCount, matches) = try await read {
            reader throws -> (Page<InvoiceSummary>, [InvoiceListTotal], Int?, [ObjectID]?) in
            let totals = try kept ?? reader.invoiceTotals(query, today: today)
            let allCount = try all.read(in: reader)
            var matches = search.kept
            let page = try reader.invoicePage(query, today: today, knownTotal: totals.reduce(0) { $0 + $1.count },
                                              allInvoices: allCount, matches: &matches)
            return (page, totals, allCount, matches)
        }
        if kept == nil { listSummaries.keep(totals: totals, for: key, at: generation) }
        all.keep(allCount, in: listSummaries, at: generation)
        search.keep(matches, in: listSummaries)
        return (page, totals)
    }

    /// Whether `query`'s page needs the number of all invoices (a search's plan does), and
    /// what is kept of it at `generation`.
    private func invoiceCount(at generation: Generation, for query: InvoiceQuery) -> InvoiceCount {
        guard query.list.search != nil, query.clientID == nil else { return InvoiceCount(isNeeded: false, kept: nil) }
        return InvoiceCount(isNeeded: true, kept: listSummaries.summary(for: InvoiceCount.key, at: generation)?.knownCount)
    }

    /// An invoice's page; nil when no invoice has this primary key.
    public func invoiceDetail(id: Int64, today: CalendarDay = .today) async throws -> InvoiceDetail? {
        return try await read { reader in try reader.invoiceDetail(id: id, today: today) }
    }

    /// `/invoices.csv`: every invoice of a list, without paging, with its lines and payments.
    public func invoiceCSV(_ query: InvoiceQuery, today: CalendarDay = .today) async throws -> String {
        return try await read { reader in InvoiceCSVExport.text(try reader.listedInvoices(query, today: today)) }
    }

    /// `/clients.csv`: every client of a list, searched and sorted, without paging.
    public func clientCSV(_ query: ClientQuery) async throws -> String {
        return try await read { reader in ClientCSVExport.text(try reader.listedClients(query)) }
    }

    /// Every invoice of a list, without paging.
    public func invoiceSummaries(_ query: InvoiceQuery, today: CalendarDay = .today) async throws -> [InvoiceSummary] {
        return try await read { reader in try reader.invoiceSummaries(query, today: today) }
    }
}

/// The number of all invoices, as a search's page needs it: counted in the page's own read
/// when no count is kept for the generation, and kept like a list's count.
private struct InvoiceCount {
    /// The unfiltered list's summary: its count is the number of all invoices.
    static let key = ListSummaryCache.Key(InvoiceQuery(), today: .today)
    let isNeeded: Bool
    let kept: Int?

    /// The count, from what is kept or from `reader`; nil when not needed.
    func read(in reader: ManagedObjectContext) throws -> Int? {
        guard isNeeded else { return nil }
        return try kept ?? reader.count(for: FetchRequest<Invoice>())
    }

    /// Keeps a count read here.
    func keep(_ count: Int?, in summaries: ListSummaryCache, at generation: Generation) {
        guard kept == nil, let count else { return }
        summaries.keep(count: count, for: Self.key, at: generation)
    }
}

/// A search's ordered matches, as a page's read needs them: kept from an earlier page of the
/// same generation, or gathered by the read and kept here.
private struct SearchMatches {
    let order: ListSummaryCache.OrderKey
    let generation: Generation
    let kept: [ObjectID]?

    init(_ query: InvoiceQuery, today: CalendarDay, at generation: Generation, in summaries: ListSummaryCache) {
        order = ListSummaryCache.OrderKey(query, today: today)
        self.generation = generation
        kept = summaries.matches(for: order, at: generation)
    }

    /// Keeps matches the read gathered.
    func keep(_ matches: [ObjectID]?, in summaries: ListSummaryCache) {
        guard kept == nil, let matches else { return }
        summaries.keep(matches: matches, for: order, at: generation)
    }
}
