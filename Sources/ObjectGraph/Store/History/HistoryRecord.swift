import Foundation

/// One object's change as a save or batch request writes it, before a store records it, and
/// the rules for what it records: the same for every store.
package struct HistoryRecord: Sendable {
    package let entity: String
    package let primaryKey: Int64
    package let kind: PersistentHistoryChange.Kind
    package var updated: [String] = []
    package var tombstone: [String: StoredValue]?
    /// The values of the entity's properties that record them (see ``values(of:old:new:)``).
    package var values: [HistoryValueRecord] = []

    /// The values history records for a change of `entity`: every recording property's new
    /// value (insert, `old` nil), old value (delete, `new` nil), or, when both are given,
    /// old and new of each recording property whose value differs.
    package static func values(of entity: EntityDescription, old: [StoredValue]?, new: [StoredValue]?) -> [HistoryValueRecord] {
        var records: [HistoryValueRecord] = []
        for index in entity.historyValueIndices {
            let before = old.flatMap { $0[safe: index] }, after = new.flatMap { $0[safe: index] }
            // A side that should be there and is not (a short base) is left out, not invented.
            if (old != nil && before == nil) || (new != nil && after == nil) { continue }
            if let before, let after, ManagedObject.sameValue(before, after) { continue }
            records.append(HistoryValueRecord(index: index, old: before, new: after))
        }
        return records
    }

    /// The values of the attributes a deleted row keeps in history (nil when none are
    /// declared), taken from the row as it was before the delete.
    package static func tombstone(of entity: EntityDescription, row: [StoredValue]) -> [String: StoredValue]? {
        var values: [String: StoredValue] = [:]
        for index in entity.attributeIndices {
            guard case .attribute(let a) = entity.properties[index], a.isPreservedInHistoryOnDeletion,
                  let value = row[safe: index] else { continue }
            values[a.name] = value
        }
        return values.isEmpty ? nil : values
    }

    /// The values history records for one row of a batch update: old → new of each recorded
    /// property the update set and changed.
    package static func batchUpdateValues(_ entity: EntityDescription, set values: [(Int, StoredValue)], recorded: [Int],
                                            old: [Int: StoredValue]?) -> [HistoryValueRecord] {
        guard let old, !recorded.isEmpty else { return [] }
        return values.compactMap { index, new in
            guard recorded.contains(index), let before = old[index], !ManagedObject.sameValue(before, new) else { return nil }
            return HistoryValueRecord(index: index, old: before, new: new)
        }
    }

    /// The names of the properties whose values differ from `base` (unloaded to-many
    /// relationships count as unchanged).
    static func changedProperties(_ values: [StoredValue], from base: [StoredValue], entity: EntityDescription) -> [String] {
        var names: [String] = []
        for (i, property) in entity.properties.enumerated() where i < values.count {
            if case .unloaded = values[i] { continue }
            if i < base.count, case .unloaded = base[i], case .relationship = property {
                if case .references = values[i] { names.append(property.name) }
                continue
            }
            if i >= base.count || !ManagedObject.sameValue(values[i], base[i]) { names.append(property.name) }
        }
        return names
    }
}

/// One property's values in a change, before it is recorded: `old` nil for inserts, `new`
/// nil for deletes.
package struct HistoryValueRecord: Sendable {
    /// The property's index in its entity.
    package let index: Int
    package let old: StoredValue?
    package let new: StoredValue?
}
