import Foundation

// What a model of the benchmark is: its records, how their data is generated, how a step 4
// update changes an invoice, and the engines that store it. Two models run: seed 002's
// (`Seed002`: strings and a Double amount) and the dashboard's (`Dashboard`: Decimal, dates,
// enums).

/// A client or invoice as generated, with every attribute as a Swift type.
protocol BenchRecord: Sendable {
    /// The pk the record gets when inserted in order into a fresh file (1, 2, 3...).
    var pk: Int64 { get }
    /// Adds every attribute to `digest`, as the read steps do with what they read.
    func add(to digest: inout Digest)
}

protocol BenchInvoice: BenchRecord {
    /// The pk of the invoice's client.
    var client: Int64 { get }
}

/// The change step 4 makes to two attributes of each chosen invoice.
protocol BenchUpdate: Sendable {
    associatedtype Invoice: BenchInvoice
    /// The update of round `round`: different values every round, so every row really changes.
    init(round: Int)
    /// The notes it sets: the harness counts them in the file after the step.
    var notes: String { get }
    func apply(to invoice: inout Invoice)
}

protocol BenchModel {
    associatedtype Client: BenchRecord
    associatedtype Invoice: BenchInvoice
    associatedtype Update: BenchUpdate where Update.Invoice == Invoice

    /// Short name, for the command line and the memory children.
    static var key: String { get }
    static var title: String { get }
    static func makeClients(count: Int, rng: inout SplitMix64) -> [Client]
    static func makeInvoices(count: Int, clients: [Client], rng: inout SplitMix64) -> [Invoice]
    /// The engines, in table order: raw SQLite, GRDB, ObjectGraph.
    @MainActor static var engines: [Engine<Self>] { get }
    /// Checks a sample of the inserted rows value by value, through the harness's own connection.
    static func checkSample(_ db: SQLiteConnection, _ dataset: Dataset<Self>) throws
    /// The engines on PostgreSQL (`--store postgresql`), in table order: raw libpq, ObjectGraph;
    /// none for a model without them.
    @MainActor static func postgreSQLEngines(insertsRows: Bool) -> [Engine<Self>]
    /// The same check on a PostgreSQL database.
    static func checkSample(_ db: LibPQConnection, _ dataset: Dataset<Self>) throws
}

extension BenchModel {
    @MainActor static func postgreSQLEngines(insertsRows: Bool) -> [Engine<Self>] { [] }

    static func checkSample(_ db: LibPQConnection, _ dataset: Dataset<Self>) throws {
        throw HarnessError("\(key) has no PostgreSQL engines")
    }
}

/// One engine's implementation of a model, known by a short key.
struct Engine<Model: BenchModel> {
    let key: String
    let title: String
    let open: @MainActor (_ path: String, _ create: Bool) throws -> any Workload<Model>
}

/// The work of one engine, each step written the way that engine is used at its best. The
/// harness owns timing, repetition and checking; a workload only does the work.
///
/// - Each instance works on its own file, which it creates (`create`) with the model's
///   tables, in WAL mode with `synchronous=NORMAL`.
/// - Everything runs on the main actor, one call at a time, synchronously (so callgrind can
///   count one call's instructions; see Profile.swift).
/// - `discardCachedObjects()` runs (untimed) before every timed call: each call reads from
///   SQLite like a new request of an app would. SQLite's own page cache stays, for all alike.
/// - Read steps read every attribute as its Swift type and add it to a `Digest`.
@MainActor
protocol Workload<Model>: AnyObject {
    associatedtype Model: BenchModel
    /// Step 1: every client then every invoice, in order, in one transaction (one save).
    func insert(_ dataset: Dataset<Model>) throws
    /// Step 2: every invoice as an object, every attribute read.
    func fetchAllInvoices() throws -> Digest
    /// Step 3: each invoice of `keys` by primary key, one at a time, in order.
    func fetchInvoices(keys: [Int64]) throws -> Digest
    /// Step 4: `update` on each invoice of `keys`, in one transaction (one save).
    func update(_ update: Model.Update, invoices keys: [Int64]) throws
    /// Step 5: for each client of `keys`, one at a time: the client, then its invoices
    /// through the relationship; every attribute of each read.
    func fetchInvoicesOfClients(_ keys: [Int64]) throws -> Digest
    /// Timed, after each write (steps 1 and 4): the WAL copied into the database file. SQLite
    /// does that within a commit that leaves 1,000 pages or more in the WAL; ObjectGraph's
    /// store beside its next work. Each engine copies what is left here, so every write is
    /// timed with the same copy, whoever made it and when.
    func finishWrites() throws
    /// Untimed, before every timed call.
    func discardCachedObjects()
    /// Untimed: no call follows.
    func close() throws
}

/// Sizes of the workload. `standard` is the issue's; `quick` a tenth of it (for checking the
/// harness, and for callgrind, which runs about fifty times slower).
struct Sizes: Sendable, Codable {
    var clients = 10_000
    var invoices = 100_000
    var lookups = 10_000          // step 3
    var updates = 10_000          // step 4
    var relationshipClients = 1_000  // step 5

    static let standard = Sizes()
    static let quick = Sizes(clients: 1_000, invoices: 10_000, lookups: 1_000, updates: 1_000, relationshipClients: 100)
}

/// Everything the engines of a model work on, generated once per process, so every engine
/// does exactly the same work.
struct Dataset<Model: BenchModel>: Sendable {
    let sizes: Sizes
    let clients: [Model.Client]
    let invoices: [Model.Invoice]
    /// Step 3: distinct invoice pks, in random order.
    let lookupKeys: [Int64]
    /// Step 4: distinct invoice pks, in random order.
    let updateKeys: [Int64]
    /// Step 5: distinct client pks, in random order.
    let relationshipClientKeys: [Int64]

    init(sizes: Sizes, seed: UInt64 = 0x1A55_0E5) {
        self.sizes = sizes
        var rng = SplitMix64(seed: seed)
        clients = Model.makeClients(count: sizes.clients, rng: &rng)
        invoices = Model.makeInvoices(count: sizes.invoices, clients: clients, rng: &rng)
        lookupKeys = Self.sample(sizes.lookups, from: sizes.invoices, rng: &rng)
        updateKeys = Self.sample(sizes.updates, from: sizes.invoices, rng: &rng)
        relationshipClientKeys = Self.sample(sizes.relationshipClients, from: sizes.clients, rng: &rng)
    }

    /// `count` distinct pks in 1...`population`, in random order (a partial Fisher-Yates
    /// shuffle). Distinct, so no engine gets a cache hit inside one call from a repeated key.
    private static func sample(_ count: Int, from population: Int, rng: inout SplitMix64) -> [Int64] {
        var pool = Array(1...Int64(population))
        let count = min(count, population)
        for i in 0..<count { pool.swapAt(i, i + rng.below(population - i)) }
        return Array(pool[..<count])
    }
}

/// The digests the read steps must return, from the generated data with the round's update
/// applied.
struct Expectations<Model: BenchModel> {
    private let dataset: Dataset<Model>
    private var invoices: [Model.Invoice]
    private let invoicesByClient: [Int64: [Int]]

    init(_ dataset: Dataset<Model>) {
        self.dataset = dataset
        invoices = dataset.invoices
        invoicesByClient = Dictionary(grouping: dataset.invoices.indices, by: { dataset.invoices[$0].client })
    }

    mutating func apply(_ update: Model.Update, to keys: [Int64]) {
        for key in keys { update.apply(to: &invoices[Int(key - 1)]) }
    }

    var fetchAll: Digest { invoices.reduce(into: Digest()) { $1.add(to: &$0) } }

    var lookups: Digest { dataset.lookupKeys.reduce(into: Digest()) { invoices[Int($1 - 1)].add(to: &$0) } }

    var relationship: Digest {
        var digest = Digest()
        for key in dataset.relationshipClientKeys {
            dataset.clients[Int(key - 1)].add(to: &digest)
            for index in invoicesByClient[key, default: []] { invoices[index].add(to: &digest) }
        }
        return digest
    }
}

/// SplitMix64: tiny, fast, fully specified, so the same seed gives the same data everywhere.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    /// Uniform in 0..<bound, without the stdlib's algorithm (not a documented contract).
    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
}
