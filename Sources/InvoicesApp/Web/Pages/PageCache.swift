import Foundation
import HTTPTypes
import Synchronization

/// A page rendered once and served again while nothing it shows has changed.
struct CachedPage: Sendable {
    let status: HTTPResponse.Status
    /// The whole HTML document, layout included.
    let body: [UInt8]
    /// A strong validator of the body (quoted, as in the header).
    let etag: String

    init(status: HTTPResponse.Status, html: String) {
        self.status = status
        body = Array(html.utf8)
        etag = Self.etag(of: body)
    }

    /// FNV-1a over the bytes: cheap, and any change of the page changes it in practice.
    static func etag(of bytes: [UInt8]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        return "\"" + String(hash, radix: 16) + "-" + String(bytes.count, radix: 16) + "\""
    }
}

/// Rendered read pages by key and ``Generation``.
///
/// A page is served from here while the generation it was rendered under is the current one.
/// A change made in this process (a save, a delete, a merge: ``Generation/local``) makes every
/// page render again before it is served. A commit by another process (``Generation/store``
/// or ``Generation/merged`` moved) is allowed ``maximumStaleness``, counted from the first
/// request that found the page behind: until then the kept page is served while its new
/// rendering runs, so an import in another process, committing every fraction of a second,
/// does not make readers wait for the main queue; its rows still show within that bound (in
/// practice within one rendering: the first request after the commit starts it).
///
/// Requests for a page that must be rendered wait for one rendering per key and generation
/// (a flight) instead of each reading the main context again: under load the main queue
/// reads each page once per change, not once per request.
///
/// Only 200 pages are kept. Bounded by ``capacity`` pages and ``maximumBytes``; past either,
/// the least recently used half goes.
///
/// `Sendable`: all state is inside `state`'s mutex, held for look-ups and bookkeeping only,
/// never while a page renders.
final class PageCache<Key: Hashable & Sendable>: Sendable {
    private struct Entry {
        let generation: Generation
        let page: CachedPage
        /// When the rendering began (on the cache's timekeeper): its data is at least as new.
        let readAt: Duration
        /// When a request first found it behind another process's commits: the oldest change
        /// it misses is no older.
        var behindSince: Duration?
        var lastUse: UInt64
    }

    private struct Flight: Hashable {
        let key: Key
        let generation: Generation
    }

    /// What a look-up came to.
    private enum Found {
        case kept(CachedPage)
        /// A rendering to wait for.
        case rendering(Task<CachedPage, any Error>)
    }

    private struct State {
        var entries: [Key: Entry] = [:]
        var flights: [Flight: Task<CachedPage, any Error>] = [:]
        var bytes = 0
        var clock: UInt64 = 0
        var hits = 0
        var staleHits = 0
        var renders = 0
        /// Requests that waited for a rendering another request started.
        var joins = 0
    }

    let capacity: Int
    let maximumBytes: Int
    /// How long another process's commits may be missing from a page served while it renders again.
    let maximumStaleness: Duration
    private let timekeeper: Timekeeper
    private let state = Mutex(State())

    init(capacity: Int = 512, maximumBytes: Int = 64 << 20, maximumStaleness: Duration = .seconds(1),
         timekeeper: Timekeeper = .continuous) {
        self.capacity = max(1, capacity)
        self.maximumBytes = max(1, maximumBytes)
        self.maximumStaleness = maximumStaleness
        self.timekeeper = timekeeper
    }

    /// The fast path: the page kept for `key` if it is current at `generation` (or stale only
    /// by another process's commits, within bounds, while its new rendering already runs);
    /// nil when the request must take ``page(for:generation:render:)``.
    func page(for key: Key, generation: Generation) -> CachedPage? {
        let now = timekeeper.now()
        return state.withLock { state in
            guard let entry = state.entries[key] else { return nil }
            if entry.generation == generation { return use(key, entry, stale: false, in: &state) }
            guard servesWhileRendering(entry, at: generation, now: now),
                  state.flights[Flight(key: key, generation: generation)] != nil else { return nil }
            return use(key, entry, stale: true, in: &state)
        }
    }

    /// The page for `key` at `generation`: kept; or rendered by `render` (at most one
    /// rendering per key and generation runs, and it keeps its page if it is a 200), the
    /// request waiting for it unless a page stale only by another process's commits may be
    /// served meanwhile.
    /// - Throws: what `render` throws, to every request waiting for that rendering.
    func page(for key: Key, generation: Generation,
              render: @escaping @Sendable () async throws -> CachedPage) async throws -> CachedPage {
        let now = timekeeper.now()
        let flight = Flight(key: key, generation: generation)
        let found = state.withLock { state -> Found in
            var entry = state.entries[key]
            if let kept = entry, kept.generation == generation { return .kept(use(key, kept, stale: false, in: &state)) }
            if var kept = entry, kept.behindSince == nil, kept.generation.local == generation.local {
                kept.behindSince = now
                state.entries[key] = kept
                entry = kept
            }
            let task: Task<CachedPage, any Error>
            if let running = state.flights[flight] {
                task = running
                state.joins += 1
            } else {
                // The rendering keeps its own page: it may finish after every request that
                // started it was answered with the stale page.
                task = Task { [self] in
                    let result: Result<CachedPage, any Error>
                    do { result = .success(try await render()) } catch { result = .failure(error) }
                    finish(flight, result, readAt: now)
                    return try result.get()
                }
                state.flights[flight] = task
                state.renders += 1
            }
            if let entry, servesWhileRendering(entry, at: generation, now: now) {
                return .kept(use(key, entry, stale: true, in: &state))
            }
            return .rendering(task)
        }
        switch found {
        case .kept(let page): return page
        case .rendering(let task): return try await task.value
        }
    }

    /// Requests answered from kept pages (those served while their new rendering ran among
    /// them), renderings run, and requests that waited for a rendering already running.
    var statistics: (hits: Int, staleHits: Int, renders: Int, joins: Int) {
        state.withLock { ($0.hits, $0.staleHits, $0.renders, $0.joins) }
    }

    /// Drops every kept page.
    func removeAll() {
        state.withLock { state in
            state.entries.removeAll()
            state.bytes = 0
        }
    }

    /// Whether `entry` may be served at `generation` while the page renders again: only
    /// another process's commits are missing from it, found less than ``maximumStaleness`` ago.
    private func servesWhileRendering(_ entry: Entry, at generation: Generation, now: Duration) -> Bool {
        entry.generation.local == generation.local && now - (entry.behindSince ?? now) < maximumStaleness
    }

    private func use(_ key: Key, _ entry: Entry, stale: Bool, in state: inout State) -> CachedPage {
        var entry = entry
        state.clock += 1
        entry.lastUse = state.clock
        state.entries[key] = entry
        if stale { state.staleHits += 1 } else { state.hits += 1 }
        return entry.page
    }

    /// A rendering is done: it is no longer waited for, and its page is kept if it is a 200.
    private func finish(_ flight: Flight, _ result: Result<CachedPage, any Error>, readAt: Duration) {
        state.withLock { state in
            state.flights[flight] = nil
            guard case .success(let page) = result, page.status == .ok else { return }
            // A rendering from an older generation than the page kept would only miss later:
            // keep the newer one (generations of one process only grow).
            if let kept = state.entries[flight.key], kept.generation.local > flight.generation.local
                || (kept.generation.local == flight.generation.local && kept.readAt > readAt) {
                return
            }
            if let old = state.entries[flight.key] { state.bytes -= old.page.body.count }
            state.clock += 1
            state.entries[flight.key] = Entry(generation: flight.generation, page: page, readAt: readAt,
                                              lastUse: state.clock)
            state.bytes += page.body.count
            guard state.entries.count > capacity || state.bytes > maximumBytes else { return }
            let byAge = state.entries.sorted { $0.value.lastUse < $1.value.lastUse }
            for (oldKey, entry) in byAge.prefix(max(1, byAge.count / 2)) {
                state.entries[oldKey] = nil
                state.bytes -= entry.page.body.count
            }
        }
    }
}
