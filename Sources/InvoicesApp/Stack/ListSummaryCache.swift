import Foundation
import ObjectGraph
import Synchronization

/// The count and per-currency totals of invoice lists, and the ordered matches of searches,
/// kept for the data generation they were read at, so that the next page of the same list
/// (or another visitor's) does not count and add up its invoices again, nor search again.
///
/// A list's summary does not depend on its page, sort or page size, so every page of a
/// search shares one entry; a page nobody asked for yet still costs its own rows. For a word
/// found in a third of the invoices, counting and adding up its matches cost two thirds of
/// the page's read (issue 18's distinct reads).
///
/// An entry is used only at the ``Generation`` it was read at (taken before the read, so the
/// summary is never older than its generation): any change main can see, this process's or
/// another server's, moves the generation and the entries of the old one are dropped at the
/// next store. `Sendable`: its state is behind a mutex.
final class ListSummaryCache: Sendable {
    /// What a summary depends on: the list's filters and search, and the day (`overdue`
    /// depends on it).
    struct Key: Hashable, Sendable {
        let query: InvoiceQuery
        let today: CalendarDay

        init(_ query: InvoiceQuery, today: CalendarDay) {
            self.query = query.summaryQuery
            self.today = today
        }
    }

    /// What is known of one list.
    struct Summary: Sendable {
        var count: Int?
        var totals: [InvoiceListTotal]?

        /// The number of invoices in the list, from whichever part was read.
        var knownCount: Int? { count ?? totals.map { $0.reduce(0) { $0 + $1.count } } }
    }

    /// What a search's ordered matches depend on: its members and its order, not its page.
    struct OrderKey: Hashable, Sendable {
        let query: InvoiceQuery
        let today: CalendarDay

        init(_ query: InvoiceQuery, today: CalendarDay) {
            var query = query
            query.list.page = 1
            query.list.pageSize = ListParameters<InvoiceSortKey>.defaultPageSize
            self.query = query
            self.today = today
        }
    }

    private struct State {
        var generation: Generation?
        var summaries: [Key: Summary] = [:]
        var matches: [OrderKey: [ObjectID]] = [:]
        var matchCount = 0

        /// Moves to `generation`, dropping the older one's entries; false when `generation`
        /// is itself older than the one kept (its reads must not be kept).
        mutating func advance(to generation: Generation) -> Bool {
            guard self.generation != generation else { return true }
            if let kept = self.generation, generation.isOlder(than: kept) { return false }
            self = State(generation: generation)
            return true
        }
    }

    private let state = Mutex(State())
    /// Entries beyond this drop them all: a bound on memory against a visitor (or a robot)
    /// asking for endless distinct searches; the lists asked for again come back at once.
    let capacity: Int

    /// Matches kept beyond this many (of every search together) drop them all: 500,000 IDs
    /// are 8 MB.
    let matchCapacity: Int

    init(capacity: Int = 1_024, matchCapacity: Int = 500_000) {
        self.capacity = capacity
        self.matchCapacity = matchCapacity
    }

    /// The summary of `key`'s list read at `generation`, if one was kept.
    func summary(for key: Key, at generation: Generation) -> Summary? {
        state.withLock { state in
            state.generation == generation ? state.summaries[key] : nil
        }
    }

    /// Keeps what was read of `key`'s list at `generation` (taken before the read). Parts
    /// already kept for the same generation stay; a newer generation drops every entry of the
    /// older one, and an older one is not kept.
    func keep(count: Int? = nil, totals: [InvoiceListTotal]? = nil, for key: Key, at generation: Generation) {
        state.withLock { state in
            guard state.advance(to: generation) else { return }
            if state.summaries[key] == nil && state.summaries.count >= capacity { state.summaries = [:] }
            var summary = state.summaries[key] ?? Summary()
            if let count { summary.count = count }
            if let totals { summary.totals = totals }
            state.summaries[key] = summary
        }
    }
}

extension ListSummaryCache {
    /// The ordered matches of `key`'s search read at `generation`, if they were kept.
    func matches(for key: OrderKey, at generation: Generation) -> [ObjectID]? {
        state.withLock { state in
            state.generation == generation ? state.matches[key] : nil
        }
    }

    /// Keeps the ordered matches of `key`'s search, read at `generation` (taken before the
    /// read), so that its other pages are windows of them.
    func keep(matches: [ObjectID], for key: OrderKey, at generation: Generation) {
        guard matches.count <= matchCapacity else { return }
        state.withLock { state in
            guard state.advance(to: generation), state.matches[key] == nil else { return }
            if state.matchCount + matches.count > matchCapacity {
                state.matches = [:]
                state.matchCount = 0
            }
            state.matches[key] = matches
            state.matchCount += matches.count
        }
    }
}

extension Generation {
    /// Whether this generation is at most as new as `other` in every part and differs from
    /// it: two reads racing with a change file their results under two generations, and
    /// the earlier one must not replace what the later one kept.
    func isOlder(than other: Generation) -> Bool {
        self != other && local <= other.local && store <= other.store && merged <= other.merged
    }
}

extension InvoiceQuery {
    /// This query with what does not change the list's members (page, sort, page size) at
    /// their defaults: the key of its summary.
    var summaryQuery: InvoiceQuery {
        var query = self
        query.list.page = 1
        query.list.sort = Self.defaultSort
        query.list.descending = true
        query.list.pageSize = ListParameters<InvoiceSortKey>.defaultPageSize
        return query
    }
}
