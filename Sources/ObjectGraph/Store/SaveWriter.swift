import Foundation

/// The statements a root save needs, on one store's connection, inside the transaction the
/// store opened for the save. ``SaveTransaction`` decides what to write (keys, upserts,
/// conflicts under the merge policy, history); a writer only runs the statements, so every
/// store saves by the same rules.
///
/// Rows are values by property index (``StoredValue``), references already permanent.
package protocol SaveWriter {
    /// The store's model.
    var model: ManagedObjectModel { get }
    /// The store's identifier, for the permanent IDs of new rows.
    var storeIdentifier: UUID { get }
    /// Whether writes record persistent history.
    var recordsHistory: Bool { get }

    /// `count` new primary keys of `entity` that no other writer will use.
    func reserveKeys(_ entity: EntityDescription, count: Int) throws -> [Int64]

    /// The row whose values of some uniqueness constraint equal `values`', if any.
    func existingRow(matchingUniqueKeysOf values: [StoredValue], entity: EntityDescription) throws -> (Int64, RowSnapshot)?

    /// The uniqueness constraint (property indices) whose values a row other than `pk`
    /// already has, if any: what a unique-index failure was about.
    func uniquenessGroup(clashingWith values: [StoredValue], entity: EntityDescription, excluding pk: Int64) throws -> [Int]?

    /// Whether `error` is the store refusing a write for a unique index.
    func isUniquenessFailure(_ error: any Error) -> Bool

    /// Inserts a row at version 1 (columns only; to-many relationships go by ``writeToMany``).
    func insert(_ entity: EntityDescription, primaryKey: Int64, values: [StoredValue]) throws

    /// Inserts rows of one entity at version 1, as ``insert(_:primaryKey:values:)`` does each;
    /// a writer may send them many per statement. Returns nil when every row was written,
    /// else the first row a unique index refused, with the store's error (the save then fails
    /// as a whole). The default writes them one by one.
    func insert(_ entity: EntityDescription, rows: [SaveWriterRow]) throws -> (primaryKey: Int64, error: StoreError)?

    /// Writes the row if its version is still `expected`, incrementing it: every column, or
    /// only the properties in `only` (property indices, ascending). False when no row was at
    /// that version.
    func update(_ entity: EntityDescription, primaryKey: Int64, values: [StoredValue], expected: Int64,
                only properties: [Int]?) throws -> Bool

    /// Writes rows of one entity ahead of the save's update loop, as
    /// ``update(_:primaryKey:values:expected:only:)`` does each, setting the same properties
    /// `only` (none of a uniqueness constraint); returns the keys of the rows written (a row
    /// at another version is left for the loop, which resolves it). A writer may send them
    /// many per statement; the default writes none ahead.
    func update(_ entity: EntityDescription, rows: [SaveWriterUpdate], only properties: [Int]) throws -> Set<Int64>

    /// Whether ``update(_:rows:only:)`` writes anything: when not (the default), a save does
    /// not group its updates for it.
    var writesUpdatesTogether: Bool { get }

    /// The row as the store holds it now; nil when there is none.
    func currentRow(_ entity: EntityDescription, primaryKey: Int64) throws -> RowSnapshot?

    /// The row as the store holds it now, which no other transaction may change or delete
    /// before this one ends; nil when there is none. How a save reads a row it does not write
    /// (an object whose only changes are to-many relationships), so that the version it
    /// settles its contexts at is still the row's when it commits. The default,
    /// ``currentRow(_:primaryKey:)``, is right for a store whose writer excludes every other.
    func sharedRow(_ entity: EntityDescription, primaryKey: Int64) throws -> RowSnapshot?

    /// Deletes the row if its version is still `expected`; false when no row was at that
    /// version. With `expected` nil, deletes it at whatever version.
    func delete(_ entity: EntityDescription, primaryKey: Int64, expected: Int64?) throws -> Bool

    /// Many-to-many links and ordered positions, from the to-many values that differ from `base`.
    func writeToMany(_ entity: EntityDescription, primaryKey: Int64, values: [StoredValue], base: [StoredValue]?) throws

    /// Removes a deleted row's links and positions.
    func deleteLinks(_ entity: EntityDescription, primaryKey: Int64) throws

    /// Records the save's history transaction; nil when there was nothing to record.
    func recordHistory(_ records: [HistoryRecord], author: String?, contextName: String?) throws -> PersistentHistoryToken?

    /// The error of a write that found its row gone from under it inside its own transaction
    /// (another connection got past the store's lock).
    func busyError() -> StoreError
}

/// One row of ``SaveWriter/update(_:rows:only:)``: its values and the version its context read.
package struct SaveWriterUpdate {
    package let primaryKey: Int64
    package let values: [StoredValue]
    package let expected: Int64
}

/// One row of ``SaveWriter/insert(_:rows:)``.
package struct SaveWriterRow {
    package let primaryKey: Int64
    package let values: [StoredValue]
}

extension SaveWriter {
    package func update(_ entity: EntityDescription, rows: [SaveWriterUpdate], only properties: [Int]) throws -> Set<Int64> {
        []
    }

    package var writesUpdatesTogether: Bool { false }

    package func sharedRow(_ entity: EntityDescription, primaryKey: Int64) throws -> RowSnapshot? {
        try currentRow(entity, primaryKey: primaryKey)
    }

    package func insert(_ entity: EntityDescription, rows: [SaveWriterRow]) throws -> (primaryKey: Int64, error: StoreError)? {
        for row in rows {
            do {
                try insert(entity, primaryKey: row.primaryKey, values: row.values)
            } catch let error as StoreError where isUniquenessFailure(error) {
                return (row.primaryKey, error)
            }
        }
        return nil
    }
}
