import CSQLiteBench
import Dispatch
import Foundation
import ObjectGraph

// Nested contexts, measured (release build, `make bench`):
// 1. A child's save of 1,000 updated objects into its parent, and the parent's save of them
//    to disk, against raw SQLite updating the same rows in one transaction.
// 2. How long a main-queue context is held while its child fetches 100,000 objects: blocks
//    are scheduled on the main queue every millisecond during the fetch, and the delay before
//    each runs is recorded (goal: under 1 ms per hop, never the whole query).
// 3. A form's save, scratchpad → main → writer → disk: `saveToStore()` (one unit) beside the
//    chain of three saves it replaces (scratchpad.save(), main.save(), writer.save()), for one
//    edited object (a form) and for 1,000, interleaved over rounds.

final class Item: ManagedObject {
    @Attribute var name: String
    @Attribute var amount: Decimal
    @Attribute var note: String?
}

func milliseconds(_ d: Duration) -> Double {
    Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15
}

func temporaryStore(_ name: String) -> URL {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("nesting-bench-\(UUID().uuidString)")
    try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    return dir.appendingPathComponent(name)
}

func makeStack(rows: Int) throws -> (PersistentStoreCoordinator, URL) {
    let url = temporaryStore("store.sqlite")
    let coordinator = PersistentStoreCoordinator(model: try ManagedObjectModel(entities: [Item.self]))
    try coordinator.addPersistentStore(.sqlite(at: url))
    let seed = ManagedObjectContext(.privateQueue, coordinator: coordinator)
    try seed.performAndWait {
        for n in 0..<rows {
            let item = Item(context: seed)
            item.name = "Item \(n)"
            item.amount = Decimal(n) / 100
        }
        try seed.save()
    }
    return (coordinator, url)
}

/// Raw SQLite: UPDATE the same rows in one transaction with a prepared statement.
func rawUpdate(path: String, count: Int, note: String) throws -> Duration {
    var db: OpaquePointer?
    guard sqlite3_open(path, &db) == SQLITE_OK, let db else { throw NSError(domain: "sqlite", code: 1) }
    defer { sqlite3_close(db) }
    sqlite3_exec(db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL", nil, nil, nil)
    var statement: OpaquePointer?
    sqlite3_prepare_v2(db, "UPDATE \"Item\" SET \"note\" = ?, _version = _version + 1 WHERE _pk = ?", -1, &statement, nil)
    defer { sqlite3_finalize(statement) }
    let clock = ContinuousClock()
    return clock.measure {
        sqlite3_exec(db, "BEGIN", nil, nil, nil)
        for pk in 1...count {
            sqlite3_bind_text(statement, 1, note, Int32(note.utf8.count), csqlitebench_transient())
            sqlite3_bind_int64(statement, 2, Int64(pk))
            sqlite3_step(statement)
            sqlite3_reset(statement)
        }
        sqlite3_exec(db, "COMMIT", nil, nil, nil)
    }
}

func childSaveBenchmark(runs: Int) throws {
    let count = 1_000
    var childSaves: [Double] = [], parentSaves: [Double] = [], raws: [Double] = []
    for run in 0..<runs {
        let (coordinator, url) = try makeStack(rows: count)
        let parent = ManagedObjectContext(.privateQueue, coordinator: coordinator, name: "parent")
        let child = parent.newChildContext(name: "child")
        let clock = ContinuousClock()
        try child.performAndWait {
            let items = try child.fetch(FetchRequest<Item>())
            for item in items { item.note = "run \(run)" }
            childSaves.append(milliseconds(try clock.measure { try child.save() }))
        }
        try parent.performAndWait {
            parentSaves.append(milliseconds(try clock.measure { try parent.save() }))
        }
        raws.append(milliseconds(try rawUpdate(path: url.path, count: count, note: "raw \(run)")))
    }
    let best = { (xs: [Double]) in xs.min() ?? 0 }
    print("1,000 updated objects, best of \(runs) runs, milliseconds")
    print(String(format: "  child save into parent      %8.2f", best(childSaves)))
    print(String(format: "  parent save to disk         %8.2f", best(parentSaves)))
    print(String(format: "  raw SQLite UPDATE x1000     %8.2f", best(raws)))
    print(String(format: "  child+parent / raw          %8.2f×", (best(childSaves) + best(parentSaves)) / max(best(raws), 0.001)))
    print(String(format: "  parent save / raw           %8.2f×", best(parentSaves) / max(best(raws), 0.001)))
}

final class Probe: @unchecked Sendable {
    // @unchecked Sendable: `delays` is only touched while `lock` is held.
    private let lock = NSLock()
    private var delays: [Double] = []
    func record(_ d: Double) { lock.withLock { delays.append(d) } }
    var sorted: [Double] { lock.withLock { delays.sorted() } }
}

func mainQueueHoldBenchmark() async throws {
    let rows = 100_000
    let (coordinator, _) = try makeStack(rows: rows)
    let writer = ManagedObjectContext(.privateQueue, coordinator: coordinator, name: "writer")
    let main = ManagedObjectContext(.mainQueue, parent: writer, name: "main")
    let child = main.newChildContext(name: "child")
    let probe = Probe()
    let done = DispatchSemaphore(value: 0)
    let clock = ContinuousClock()
    let fetchStart = clock.now
    let fetched = Task.detached {
        defer { done.signal() }
        return try await child.perform { try child.fetch(FetchRequest<Item>()).count }
    }
    // Probes: every millisecond, a block on the main context; record how late it runs.
    while done.wait(timeout: .now()) == .timedOut {
        let scheduled = clock.now
        await main.perform(schedule: .enqueued) { probe.record(milliseconds(clock.now - scheduled)) }
        try await Task.sleep(for: .milliseconds(1))
    }
    let count = try await fetched.value
    let total = milliseconds(clock.now - fetchStart)
    let delays = probe.sorted
    let p = { (q: Double) in delays.isEmpty ? 0 : delays[min(delays.count - 1, Int(Double(delays.count) * q))] }
    print("main queue while a child of main fetches \(count) objects (\(String(format: "%.1f", total)) ms)")
    print("  probe blocks run on main during the fetch: \(delays.count)")
    print(String(format: "  delay before a main block ran: median %.3f ms, p99 %.3f ms, max %.3f ms", p(0.5), p(0.99), delays.last ?? 0))
}

/// One save of `count` edited objects from a new scratchpad of `main`, by the chain of three
/// saves or by `saveToStore()`; returns milliseconds.
func formSave(_ main: ManagedObjectContext, _ writer: ManagedObjectContext, ids: [ObjectID], note: String,
              throughToStore: Bool) async throws -> Double {
    let scratchpad = main.newChildContext(name: "form")
    scratchpad.automaticallyMergesChangesFromParent = false
    try await scratchpad.perform {
        for id in ids { try scratchpad.existingObject(with: id, as: Item.self).note = note }
    }
    let clock = ContinuousClock()
    let started = clock.now
    if throughToStore {
        try await scratchpad.saveToStore()
    } else {
        try await scratchpad.perform { try scratchpad.save() }
        try await main.perform { try main.save() }
        try await writer.perform { try writer.save() }
    }
    return milliseconds(clock.now - started)
}

func saveThroughBenchmark(rounds: Int) async throws {
    let (coordinator, _) = try makeStack(rows: 1_000)
    let writer = ManagedObjectContext(.privateQueue, coordinator: coordinator, name: "writer")
    let main = ManagedObjectContext(.mainQueue, parent: writer, name: "main")
    let reader = ManagedObjectContext(.privateQueue, coordinator: coordinator)
    let ids = try await reader.perform { try reader.fetchObjectIDs(FetchRequest<Item>()) }
    for count in [1, 1_000] {
        var chain: [Double] = [], through: [Double] = []
        let saves = count == 1 ? 100 : 5
        for round in 0..<rounds {
            // Interleaved, the order alternating per round.
            for throughToStore in round % 2 == 0 ? [false, true] : [true, false] {
                for n in 0..<saves {
                    let slice = Array(ids.prefix(count == 1 ? n % ids.count + 1 : count).suffix(count))
                    let ms = try await formSave(main, writer, ids: slice, note: "\(round)-\(n)-\(throughToStore)",
                                                throughToStore: throughToStore)
                    if throughToStore { through.append(ms) } else { chain.append(ms) }
                }
            }
        }
        chain.sort()
        through.sort()
        let median = { (xs: [Double]) in xs[xs.count / 2] }
        let p99 = { (xs: [Double]) in xs[min(xs.count - 1, Int(Double(xs.count) * 0.99))] }
        print("a form's save of \(count) edited object\(count == 1 ? "" : "s") to disk, \(chain.count) saves each, milliseconds")
        print(String(format: "  chain of three saves        median %8.3f  p99 %8.3f", median(chain), p99(chain)))
        print(String(format: "  saveToStore()               median %8.3f  p99 %8.3f", median(through), p99(through)))
        print(String(format: "  saveToStore / chain         %8.2f× (median)", median(through) / max(median(chain), 0.001)))
    }
}

let runs = CommandLine.arguments.contains("--quick") ? 3 : 7
try childSaveBenchmark(runs: runs)
try await mainQueueHoldBenchmark()
try await saveThroughBenchmark(rounds: runs)
