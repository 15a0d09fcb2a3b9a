import Foundation
import Synchronization

/// The count and per-currency totals of invoice lists, kept for the data generation they
/// were read at, so that the next page of the same list (or another visitor's) does not
/// count and add up its invoices again.
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

    private struct State {
        var generation: Generation?
        var summaries: [Key: Summary] = [:]
    }

    private let state = Mutex(State())
    /// Entries beyond this drop them all: a bound on memory against a visitor (or a robot)
    /// asking for endless distinct searches; the lists asked for again come back at once.
    let capacity: Int

    init(capacity: Int = 1_024) {
        self.capacity = capacity
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
            if state.generation != generation {
                if let kept = state.generation, generation.isOlder(than: kept) { return }
                state.generation = generation
                state.summaries = [:]
            }
            if state.summaries[key] == nil && state.summaries.count >= capacity { state.summaries = [:] }
            var summary = state.summaries[key] ?? Summary()
            if let count { summary.count = count }
            if let totals { summary.totals = totals }
            state.summaries[key] = summary
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
