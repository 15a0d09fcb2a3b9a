import Foundation

// What a store in another module of this package (ObjectGraphPostgreSQL) needs to build
// ObjectGraph's values: package factories beside the types' own internal initializers, so the
// types keep their memberwise initializers and nothing here is public.

extension RowSnapshot {
    /// A row as a store read it.
    package static func make(values: [StoredValue], version: Int64) -> RowSnapshot {
        RowSnapshot(values: values, version: version)
    }
}

extension ObjectID {
    /// The permanent ID of the row `primaryKey` of `entity` in the store `store`.
    package static func permanent(_ entity: String, store: UUID, primaryKey: Int64) -> ObjectID {
        ObjectID(entityName: entity, key: .permanent(store: store, primaryKey: primaryKey))
    }
}

extension PersistentHistoryTransaction {
    /// A transaction as a store read it from its history tables.
    package static func make(number: Int64, store: UUID, timestamp: Date, author: String?, contextName: String?,
                             processID: Int32, changes: [PersistentHistoryChange]) -> PersistentHistoryTransaction {
        PersistentHistoryTransaction(number: number,
                                     token: PersistentHistoryToken(storeIdentifier: store, transactionNumber: number),
                                     timestamp: timestamp, author: author, contextName: contextName, processID: processID,
                                     changes: changes)
    }
}

extension PersistentHistoryChange {
    /// A change as a store read it, with its tombstone's values and recorded values.
    package static func make(objectID: ObjectID, kind: Kind, updatedProperties: Set<String>,
                             tombstone: [String: StoredValue]?, values: [String: HistoryValueChange]) -> PersistentHistoryChange {
        PersistentHistoryChange(objectID: objectID, kind: kind, updatedProperties: updatedProperties,
                                tombstone: tombstone.map { Tombstone(values: $0) }, values: values)
    }
}

extension HistoryValue {
    /// A recorded value from its stored form (nil for the to-many forms, never recorded).
    package static func make(_ stored: StoredValue) -> HistoryValue? {
        HistoryValue(stored)
    }

    /// The stored form of a recorded value.
    package var stored: StoredValue { storedValue }
}

extension StoredValue {
    /// Whether the value is SQL NULL.
    package var isNullValue: Bool { isNull }
}

extension EntityDescription {
    /// The uniqueness constraints, each as the indices of its properties.
    package var uniquenessPropertyIndices: [[Int]] { uniquenessIndices }
}

extension ManagedObjectModel {
    /// The model's schema as stores record it in their metadata (`modelSchema`).
    package func recordedSchema() throws -> String {
        String(decoding: try JSONEncoder().encode(schema), as: UTF8.self)
    }
}

extension MigrationReport {
    /// A migration a store ran (PostgreSQL writes no backup).
    package static func make(fromVersion: Int, toVersion: Int, stages: [String], backup: URL?,
                             duration: Duration) -> MigrationReport {
        MigrationReport(fromVersion: fromVersion, toVersion: toVersion, stages: stages, backup: backup, duration: duration)
    }
}

extension HistoryRecord {
    /// One object's change as a batch request of another store writes it.
    package static func make(entity: String, primaryKey: Int64, kind: PersistentHistoryChange.Kind, updated: [String] = [],
                             tombstone: [String: StoredValue]? = nil, values: [HistoryValueRecord] = []) -> HistoryRecord {
        HistoryRecord(entity: entity, primaryKey: primaryKey, kind: kind, updated: updated, tombstone: tombstone, values: values)
    }
}

extension HistoryValueRecord {
    /// One property's old and new values in a change.
    package static func make(index: Int, old: StoredValue?, new: StoredValue?) -> HistoryValueRecord {
        HistoryValueRecord(index: index, old: old, new: new)
    }
}
