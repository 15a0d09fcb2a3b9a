import Foundation

/// What a coordinator needs of a store: the contract every store keeps, whatever holds the
/// rows.
///
/// ObjectGraph's own store is ``PersistentStoreDescription``'s SQLite store, on a file or in
/// memory (an SQLite `:memory:` database: the same code and SQL as a file). Another module of
/// this package adds a store by conforming to this protocol (ObjectGraphPostgreSQL). The
/// protocol is `package`, not `public`: its requirements speak in ObjectGraph's row and
/// change-set types (``StoredValue``, ``RowSnapshot``, ``SaveRequest``), which users never
/// see, and which the package's own tests read with a plain `@testable import` (an
/// `@_spi` protocol would make every such test import the SPI too).
///
/// A store keeps these promises, and the coordinator relies on nothing else:
/// - **Rows.** Reading a row or a to-many relationship's destinations returns its values by
///   property index, with the row's version. Fetches take the condition, order and paging the
///   fetch plan translated for the store's ``dialect``.
/// - **Saves.** ``save(_:)`` writes a whole change set in one transaction, or nothing.
///   Updates and deletes name the row version their context read; a row at another version
///   is resolved per property by the request's merge policy (``RowMerge``), and `.error`
///   throws ``SaveError/mergeConflict(_:)`` with every conflict of the save.
/// - **Batch requests** run without objects, in one transaction each, with their history.
/// - **History.** When the store records it, every write records a transaction in the same
///   transaction as the data; tokens only grow, and a purge never passes a consumer's cursor.
/// - **Remote changes.** ``makeChangeSignal(reusingAnswersFor:)`` gives a number that
///   changes when anyone else commits; history then says what they committed.
/// - **Records** (``writeRecords(_:)``) are written outside history and the change signal:
///   they are not the model's data, and nobody's pages depend on them.
///
/// A store is used from any thread at once: it guards its connections itself.
package protocol PersistentStore: AnyObject, Sendable {
    /// The store's unique identifier, recorded in the store: part of every permanent object ID.
    var identifier: UUID { get }
    /// The identifier's number in this process (``ObjectID`` holds numbers, not UUIDs).
    var storeCode: UInt32 { get }
    /// Where the store is, for messages: a file's path, `:memory:`, or a server's address
    /// (never a password).
    var location: String { get }
    /// Whether writes record persistent history.
    var recordsHistory: Bool { get }
    /// Whether other coordinators, processes or servers can write to the store too (an
    /// in-memory store is this coordinator's alone): only then are remote changes watched.
    var isShared: Bool { get }
    /// What opening the store migrated (nil when it needed no migration).
    var migrationOutcome: MigrationOutcome? { get }

    /// The SQL dialect of the store's conditions, orders and paging.
    var dialect: SQLDialect { get }
    /// How many read queries the store has run: lets tests prove that firing faults from the
    /// row cache runs no SQL.
    var executedReadQueries: Int { get }

    // MARK: Reading

    /// One row by primary key; nil when it does not exist.
    func row(primaryKey: Int64, entity: EntityDescription) throws -> RowSnapshot?

    /// The destinations of a to-many relationship with their rows, in one query (in the
    /// relationship's order when it is ordered, else by primary key).
    func destinations(of ownerKey: Int64, relationship: RelationshipDescription,
                      entity: EntityDescription) throws -> [(ObjectID, RowSnapshot)]

    /// Rows of `entity` matching `condition` (the root row aliased `t0`), in `orderBy` order.
    /// `join` puts another table beside the rows (a search index) for the condition and
    /// order to read.
    func fetchRows(_ entity: EntityDescription, join: String, where condition: SQLFragment?, orderBy: String?,
                   limit: Int?, offset: Int) throws -> [(ObjectID, RowSnapshot)]

    /// The rows `fetchRows` returns, handed to `body` a batch of up to `batchSize` at a time
    /// as they are read, so a fetch need not hold every row beside the objects made from
    /// them. `body` must not read the store. Stores without a cursor may gather the rows first.
    func forEachBatch(_ entity: EntityDescription, join: String, where condition: SQLFragment?, orderBy: String?,
                      limit: Int?, offset: Int, batchSize: Int,
                      _ body: (ArraySlice<(ObjectID, RowSnapshot)>) throws -> Void) throws

    /// Matching rows with the value of `rank` for each (a full-text search's rank), in no order.
    func fetchRankedRows(_ entity: EntityDescription, join: String, where condition: SQLFragment?,
                         rank: String) throws -> [(id: ObjectID, row: RowSnapshot, rank: Double)]

    /// The IDs of matching rows, without their values.
    func fetchIDs(_ entity: EntityDescription, join: String, where condition: SQLFragment?, orderBy: String?,
                  limit: Int?, offset: Int) throws -> [ObjectID]

    /// How many rows match.
    func count(_ entity: EntityDescription, join: String, where condition: SQLFragment?) throws -> Int

    /// Adds the rows an aggregate plan selects to `table`, leaving out the rows with the
    /// primary keys in `excluded` (the caller adds their unsaved values instead).
    func aggregate(_ plan: AggregatePlan, excluding excluded: [Int64], into table: inout GroupTable) throws

    // MARK: Writing

    /// Writes a root context's save in one transaction: all of it, or nothing.
    /// - Throws: ``SaveError/mergeConflict(_:)``, ``SaveError/uniquenessViolation(_:)``,
    ///   ``StoreError``.
    func save(_ request: SaveRequest) throws -> SaveResult

    /// Reserves permanent IDs for objects not saved yet; no other writer will use them.
    func obtainPermanentIDs(_ ids: [ObjectID]) throws -> [ObjectID: ObjectID]

    /// Inserts the rows `next` returns (full value arrays by property index); `finish` runs
    /// after the last row, inside the transaction, and throws to roll everything back.
    /// - Throws: ``BatchError``.
    func batchInsert(_ entity: EntityDescription, next: () throws -> [StoredValue]?, finish: () throws -> Void,
                     author: String?, contextName: String?) throws -> BatchOutcome

    /// Sets `values` (property index → value) on the rows matching `condition`.
    /// - Throws: ``BatchError``.
    func batchUpdate(_ entity: EntityDescription, where condition: SQLFragment?, values: [(Int, StoredValue)],
                     author: String?, contextName: String?) throws -> BatchOutcome

    /// Deletes the selected rows with the model's delete rules applied.
    /// - Throws: ``BatchError``.
    func batchDelete(_ entity: EntityDescription, _ selection: BatchDeleteSelection,
                     author: String?, contextName: String?) throws -> BatchOutcome

    // MARK: History

    /// The token of the store's latest history transaction.
    func currentHistoryToken() throws -> PersistentHistoryToken

    /// The transactions after `token` (all kept ones when nil), oldest first, at most
    /// `limit`, and the latest token, read together (one read transaction), so that a
    /// reader that moves its cursor to `latest` misses nothing. `excludingOwn` leaves out the
    /// transactions this store's own writer made.
    /// - Throws: ``PersistentHistoryError`` for a token of another store, expired, or from
    ///   the future.
    func history(after token: PersistentHistoryToken?, limit: Int?,
                 excludingOwn: Bool) throws -> (transactions: [PersistentHistoryTransaction], latest: PersistentHistoryToken)

    /// One object's transactions, each with only that object's changes.
    func history(of objectID: ObjectID, order: HistoryOrder, limit: Int?,
                 startingAfter token: PersistentHistoryToken?) throws -> [PersistentHistoryTransaction]

    /// Checks that history after `token` is all still there.
    /// - Throws: ``PersistentHistoryError``.
    func validate(_ token: PersistentHistoryToken) throws

    /// Deletes the transactions up to and including `token`'s, but none a registered
    /// consumer has not read. Returns the transaction number history is purged through.
    func purgeHistory(through token: PersistentHistoryToken) throws -> Int64

    /// A history consumer's stored cursor.
    func cursor(named consumer: String) throws -> PersistentHistoryToken?

    /// Stores a history consumer's cursor; nil removes it.
    func setCursor(named consumer: String, to token: PersistentHistoryToken?) throws

    // MARK: Records beside the model

    /// Runs `statements` in one write transaction that records no history and sends no
    /// change signal (``StoreRecords``: sessions, open forms). Returns the rows the last
    /// statement changed.
    /// - Throws: ``StoreError``.
    func writeRecords(_ statements: [SQLFragment]) throws -> Int

    /// Runs a query of ``StoreRecords`` and returns its rows, each column as text (nil for NULL).
    /// - Throws: ``StoreError``.
    func readRecords(_ query: SQLFragment) throws -> [[String?]]

    // MARK: Remote changes

    /// A new signal of other writers' commits. `interval` is how long an answer may be
    /// reused, for callers that ask on every request.
    /// - Throws: ``StoreError`` when the store cannot be watched.
    func makeChangeSignal(reusingAnswersFor interval: Duration) throws -> any StoreChangeSignal

    // MARK: Files

    /// Copies what a write-ahead log holds into the database file now (stores without one
    /// have nothing to do).
    func checkpoint() throws
}

extension PersistentStore {
    package func checkpoint() throws {}

    /// Reads every row, then hands them over a batch at a time.
    package func forEachBatch(_ entity: EntityDescription, join: String, where condition: SQLFragment?,
                              orderBy: String?, limit: Int?, offset: Int, batchSize: Int,
                              _ body: (ArraySlice<(ObjectID, RowSnapshot)>) throws -> Void) throws {
        let rows = try fetchRows(entity, join: join, where: condition, orderBy: orderBy, limit: limit, offset: offset)
        var start = rows.startIndex
        while start < rows.endIndex {
            let end = min(start + max(1, batchSize), rows.endIndex)
            try body(rows[start..<end])
            start = end
        }
    }

    /// - Throws: ``PersistentHistoryError/notRecorded(path:)`` when the store records no history.
    package func requireHistory() throws {
        if !recordsHistory { throw PersistentHistoryError.notRecorded(path: location) }
    }

    /// The identifier's number, looked up (a store that keeps it answers at once).
    package var storeCode: UInt32 { ObjectID.storeCode(for: identifier) }

    /// The permanent ID of a row of this store, its entity given by number.
    package func objectID(entityCode: UInt32, primaryKey: Int64) -> ObjectID {
        ObjectID(entityCode: entityCode, storeCode: storeCode, value: primaryKey)
    }

    /// The permanent ID of a row of this store.
    package func objectID(_ entity: String, primaryKey: Int64) -> ObjectID {
        ObjectID(entityCode: ObjectID.entityCode(for: entity), storeCode: storeCode, value: primaryKey)
    }
}
