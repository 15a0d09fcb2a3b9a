/// One implementation of the benchmark: the same five steps, each written the
/// way a typical user of that API would write it. The harness owns timing,
/// repetition and checking; a workload only does the work.
///
/// Contract (what keeps the columns comparable):
/// - Each instance works on its own SQLite file, with `Schema.createSQL`'s
///   tables and `Schema.pragmas` (the harness checks the file after step 1 and
///   step 4 through its own connection, using those table and column names).
/// - Everything runs on the main actor, one call at a time. Requirements are
///   `async` so an implementation with an async API can await it; a
///   synchronous method satisfies them too.
/// - `discardCachedObjects()` is called (untimed) before every timed call:
///   drop every object kept from earlier calls (take a fresh context), so each
///   run reads from SQLite like a new request of the app would. SQLite's own
///   page cache is left alone, for every column alike.
/// - Read steps build their objects with every attribute as a Swift type
///   (String, Decimal, Date, Int64, the enums) and add every object they read
///   to an `InvoiceDigest`, inside the timed call.
@MainActor
protocol Workload: AnyObject {
    /// Opens the database at `path` (untimed). When `create` is true the file
    /// does not exist yet: create it with `Schema.createSQL`. Either way apply
    /// `Schema.pragmas` (journal_mode=WAL, synchronous=NORMAL, foreign_keys=ON).
    init(path: String, create: Bool) async throws

    /// Step 1: insert every client then every invoice of `dataset`, in order,
    /// and save, in one transaction. Inserted in order into a fresh file, the
    /// objects get the pks written in `ClientData.pk` / `InvoiceData.pk`;
    /// `InvoiceData.client` is the pk of the invoice's client (its 1-based
    /// position in `dataset.clients`).
    func insert(_ dataset: Dataset) async throws

    /// Step 2: fetch all invoices as objects and read every attribute.
    func fetchAllInvoices() async throws -> InvoiceDigest

    /// Step 3: fetch each invoice of `ids` by primary key, one at a time (as an
    /// app serving one invoice per request would), in the given order. No
    /// batching (`IN (...)`).
    func fetchInvoices(ids: [Int64]) async throws -> InvoiceDigest

    /// Step 4: set `notes` to `notes` on each invoice of `ids` and save, in one
    /// transaction. `notes` differs on every run, so every row really changes.
    func setNotes(_ notes: String, onInvoices ids: [Int64]) async throws

    /// Step 5: for each client pk of `clientIDs`, one at a time, fetch the
    /// client and then its invoices through the client → invoices
    /// relationship; add the client and each invoice to the digest.
    func fetchInvoicesOfClients(_ clientIDs: [Int64]) async throws -> InvoiceDigest

    /// Untimed, before every timed call: forget cached objects (see above).
    func discardCachedObjects() async

    /// Untimed: close the database. No call follows.
    func close() async throws
}
