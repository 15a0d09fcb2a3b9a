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

    /// A kept value and when it was last used (a tick of the cache's clock).
    private struct Entry<Value> {
        var value: Value
        var used: UInt64
    }

    private struct State {
        var generation: Generation?
        var summaries: [Key: Entry<Summary>] = [:]
        var matches: [OrderKey: Entry<[ObjectID]>] = [:]
        var matchCount = 0
        var clock: UInt64 = 0

        /// Moves to `generation`, dropping the older one's entries; false when `generation`
        /// is itself older than the one kept (its reads must not be kept).
        mutating func advance(to generation: Generation) -> Bool {
            guard self.generation != generation else { return true }
            if let kept = self.generation, generation.isOlder(than: kept) { return false }
            self = State(generation: generation)
            return true
        }

        mutating func tick() -> UInt64 {
            clock += 1
            return clock
        }

        /// Keeps the `count` summaries used last.
        mutating func keepRecentSummaries(_ count: Int) {
            let recent = summaries.sorted { $0.value.used > $1.value.used }.prefix(count)
            summaries = Dictionary(uniqueKeysWithValues: recent.map { ($0.key, $0.value) })
        }

        /// Drops the matches used longest ago until `room` more fit under `capacity`.
        mutating func makeRoom(for room: Int, under capacity: Int) {
            guard matchCount + room > capacity else { return }
            for (key, entry) in matches.sorted(by: { $0.value.used < $1.value.used }) {
                matches[key] = nil
                matchCount -= entry.value.count
                if matchCount + room <= capacity { return }
            }
        }
    }

    private let state = Mutex(State())
    /// Summaries kept at most: a bound on memory against a visitor (or a robot) asking for
    /// endless distinct searches. Past it, the half used longest ago is dropped, so a list
    /// asked for often (a frequent word, whose count costs a second at 1,000,000 invoices)
    /// stays while one-off searches come and go.
    let capacity: Int

    /// Matches kept at most (of every search together): 1,000,000 IDs are 16 MB, twenty
    /// searches of the most a search keeps (``ManagedObjectContext/keptSearchMatches``).
    /// Past it, the searches used longest ago are dropped first.
    let matchCapacity: Int

    init(capacity: Int = 1_024, matchCapacity: Int = 1_000_000) {
        self.capacity = capacity
        self.matchCapacity = matchCapacity
    }

    /// The summary of `key`'s list read at `generation`, if one was kept.
    func summary(for key: Key, at generation: Generation) -> Summary? {
        state.withLock { state in
            guard state.generation == generation else { return nil }
            let now = state.tick()
            state.summaries[key]?.used = now
            return state.summaries[key]?.value
        }
    }

    /// Keeps what was read of `key`'s list at `generation` (taken before the read). Parts
    /// already kept for the same generation stay; a newer generation drops every entry of the
    /// older one, and an older one is not kept.
    func keep(count: Int? = nil, totals: [InvoiceListTotal]? = nil, for key: Key, at generation: Generation) {
        state.withLock { state in
            guard state.advance(to: generation) else { return }
            if state.summaries[key] == nil && state.summaries.count >= capacity { state.keepRecentSummaries(capacity / 2) }
            var summary = state.summaries[key]?.value ?? Summary()
            if let count { summary.count = count }
            if let totals { summary.totals = totals }
            state.summaries[key] = Entry(value: summary, used: state.tick())
        }
    }
}

extension ListSummaryCache {
    /// The ordered matches of `key`'s search read at `generation`, if they were kept.
    func matches(for key: OrderKey, at generation: Generation) -> [ObjectID]? {
        state.withLock { state in
            guard state.generation == generation else { return nil }
            let now = state.tick()
            state.matches[key]?.used = now
            return state.matches[key]?.value
        }
    }

    /// Keeps the ordered matches of `key`'s search, read at `generation` (taken before the
    /// read), so that its other pages are windows of them.
    func keep(matches: [ObjectID], for key: OrderKey, at generation: Generation) {
        guard matches.count <= matchCapacity else { return }
        state.withLock { state in
            guard state.advance(to: generation), state.matches[key] == nil else { return }
            state.makeRoom(for: matches.count, under: matchCapacity)
            state.matches[key] = Entry(value: matches, used: state.tick())
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
