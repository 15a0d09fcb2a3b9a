import Foundation
import ObjectGraph

/// Persistent history of a batch request on PostgreSQL, inside its write transaction: the
/// same rows a save writes (`PostgreSQLStore.recordHistory`: one transaction row, a change row
/// per object, its recorded values and tombstone), written many per statement.
///
/// Changes are kept until 512 have come, then written together: their ids are taken from
/// `_og_history_change`'s identity sequence first, so their values and tombstones can be
/// written beside them without reading each id back. A batch that streams its rows so never
/// holds all of their history in memory. A writer that received no change writes nothing.
struct PostgreSQLBatchHistoryWriter {
    let store: PostgreSQLStore
    let db: PostgreSQLConnection
    let author: String?
    let contextName: String?
    /// The transaction's number, once its row is written.
    private var number: Int64?
    private var pending: [HistoryRecord] = []
    private static let changesPerFlush = 512

    private static let changes = PostgreSQLMultiRowInsert(
        into: "_og_history_change", columns: ["id", "txn", "entity", "pk", "kind", "updated"])
    private static let values = PostgreSQLMultiRowInsert(
        into: "_og_history_value", columns: ["change", "property", "type", "destination", "old", "new"])
    private static let tombstones = PostgreSQLMultiRowInsert(
        into: "_og_history_tombstone", columns: ["change", "attribute", "value"])

    init(store: PostgreSQLStore, db: PostgreSQLConnection, author: String?, contextName: String?) {
        self.store = store
        self.db = db
        self.author = author
        self.contextName = contextName
    }

    /// Adds one change.
    mutating func append(_ record: HistoryRecord) throws {
        pending.append(record)
        if pending.count >= Self.changesPerFlush { try flush() }
    }

    /// Writes what is left; the token of the transaction written, nil when there was no change.
    mutating func finish() throws -> PersistentHistoryToken? {
        try flush()
        return number.map { PersistentHistoryToken(storeIdentifier: store.identifier, transactionNumber: $0) }
    }

    private mutating func flush() throws {
        guard !pending.isEmpty else { return }
        let number = try self.number ?? PostgreSQLStore.insertHistoryTransaction(
            author: author, contextName: contextName, writerIdentity: store.writerIdentity, in: db)
        self.number = number
        let ids = try db.query("""
            SELECT nextval(pg_get_serial_sequence('_og_history_change', 'id')) FROM generate_series(1, \(.int(Int64(pending.count))))
            """)
        var changes: [StoredValue] = [], values: [StoredValue] = [], tombstones: [StoredValue] = []
        changes.reserveCapacity(pending.count * Self.changes.width)
        var entity: EntityDescription?
        for (n, record) in pending.enumerated() {
            let id = ids.int(n, 0)
            changes += [.int(id), .int(number), .string(record.entity), .int(record.primaryKey), .int(Int64(record.kind.rawValue)),
                        record.updated.isEmpty ? .null : .string(record.updated.joined(separator: ","))]
            if entity?.name != record.entity { entity = store.model.entity(named: record.entity) }
            guard let entity else { continue }
            var inValues = Set<String>()
            for value in record.values where value.index < entity.properties.count {
                let property = entity.properties[value.index]
                let (type, destination): (HistoryValueType, StoredValue)
                switch property {
                case .attribute(let a): (type, destination) = (HistoryValueType(a.type), .null)
                case .relationship(let r): (type, destination) = (.reference, .string(r.destinationEntityName))
                }
                values += [.int(id), .string(property.name), .int(type.rawValue), destination,
                           PostgreSQLStore.recordedText(value.old), PostgreSQLStore.recordedText(value.new)]
                inValues.insert(property.name)
            }
            // A preserved attribute that records values keeps its tombstone value there, once.
            for (name, value) in record.tombstone ?? [:] where !inValues.contains(name) {
                tombstones += [.int(id), .string(name), PostgreSQLStore.recordedText(value)]
            }
        }
        try Self.changes.run(changes, in: db)
        try Self.values.run(values, in: db)
        try Self.tombstones.run(tombstones, in: db)
        pending.removeAll(keepingCapacity: true)
    }
}
