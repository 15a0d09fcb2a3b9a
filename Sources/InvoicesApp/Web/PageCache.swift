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
/// A page is served from here only while the generation it was rendered under is still the
/// current one, so a save, a delete, a merge or another process's commit makes every page
/// render again on its next request. Requests for a page that is not here (or is stale) and
/// arrive while it is being rendered wait for that one rendering instead of each reading
/// the main context again (one flight per key and generation): under load, the main queue
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
        var lastUse: UInt64
    }

    private struct Flight: Hashable {
        let key: Key
        let generation: Generation
    }

    /// What a look-up found: a page, or the rendering to wait for.
    private enum Found {
        case kept(CachedPage)
        case rendering(Task<CachedPage, any Error>)
    }

    private struct State {
        var entries: [Key: Entry] = [:]
        var flights: [Flight: Task<CachedPage, any Error>] = [:]
        var bytes = 0
        var clock: UInt64 = 0
        var hits = 0
        var renders = 0
    }

    let capacity: Int
    let maximumBytes: Int
    private let state = Mutex(State())

    init(capacity: Int = 512, maximumBytes: Int = 64 << 20) {
        self.capacity = max(1, capacity)
        self.maximumBytes = max(1, maximumBytes)
    }

    /// The page kept for `key` if it was rendered under `generation`; nil otherwise.
    func page(for key: Key, generation: Generation) -> CachedPage? {
        state.withLock { state in
            guard var entry = state.entries[key], entry.generation == generation else { return nil }
            state.clock += 1
            entry.lastUse = state.clock
            state.entries[key] = entry
            state.hits += 1
            return entry.page
        }
    }

    /// The page for `key` at `generation`: kept, being rendered by another request (then
    /// this one waits for it), or rendered now by `render` and kept if it is a 200.
    /// - Throws: what `render` throws (every request waiting for that rendering gets it).
    func page(for key: Key, generation: Generation,
              render: @escaping @Sendable () async throws -> CachedPage) async throws -> CachedPage {
        let flight = Flight(key: key, generation: generation)
        let found = state.withLock { state -> Found in
            if var entry = state.entries[key], entry.generation == generation {
                state.clock += 1
                entry.lastUse = state.clock
                state.entries[key] = entry
                state.hits += 1
                return .kept(entry.page)
            }
            if let running = state.flights[flight] { return .rendering(running) }
            let started = Task { try await render() }
            state.flights[flight] = started
            state.renders += 1
            return .rendering(started)
        }
        let task: Task<CachedPage, any Error>
        switch found {
        case .kept(let page): return page
        case .rendering(let rendering): task = rendering
        }
        let result: Result<CachedPage, any Error>
        do { result = .success(try await task.value) } catch { result = .failure(error) }
        state.withLock { state in
            guard state.flights[flight] != nil else { return }   // another waiter finished it
            state.flights[flight] = nil
            if case .success(let page) = result, page.status == .ok { keep(page, for: key, generation: generation, in: &state) }
        }
        return try result.get()
    }

    /// How many requests were answered from kept pages, and how many renderings ran.
    var statistics: (hits: Int, renders: Int) { state.withLock { ($0.hits, $0.renders) } }

    /// Drops every kept page.
    func removeAll() {
        state.withLock { state in
            state.entries.removeAll()
            state.bytes = 0
        }
    }

    private func keep(_ page: CachedPage, for key: Key, generation: Generation, in state: inout State) {
        // The last rendering to finish wins; one from an older generation merely misses later.
        if let old = state.entries[key] {
            state.bytes -= old.page.body.count
        }
        state.clock += 1
        state.entries[key] = Entry(generation: generation, page: page, lastUse: state.clock)
        state.bytes += page.body.count
        guard state.entries.count > capacity || state.bytes > maximumBytes else { return }
        let byAge = state.entries.sorted { $0.value.lastUse < $1.value.lastUse }
        for (oldKey, entry) in byAge.prefix(max(1, byAge.count / 2)) {
            state.entries[oldKey] = nil
            state.bytes -= entry.page.body.count
        }
    }
}
