import Foundation

/// What a root save does when the store's row is not the one its context read: pure
/// functions of the values the context read (base), its values (ours), the store's row
/// (theirs) and the merge policy. Every store resolves the same way, because it asks here.
///
/// Property by property it is ``PropertyMerge``, the rule a save into a parent context
/// follows too; this type applies it to whole rows and adds what only the store knows about:
/// rows at another version, inserts that meet an existing unique key, deletes of changed rows.
enum RowMerge {
    /// What to do with an update whose row changed since it was read.
    enum Resolution: Equatable {
        /// Write these values over the store's row.
        case write([StoredValue])
        /// Keep the store's row and drop our changes to the object (`.rollback`).
        case keepTheirs
        /// Refuse the save (`.error`): these properties changed on both sides to different
        /// values. The list may be empty: under `.error` a save based on an old version of a
        /// row is refused even when the store's row changed only in properties it did not change.
        case conflict([MergeConflict.PropertyConflict])
    }

    /// The resolution of an update of `entity`'s row under `policy`.
    ///
    /// ```swift
    /// // base "Acme", ours "Acme Ltd", theirs "Acme Corp"; theirs also moved the city.
    /// RowMerge.resolve(base: base, ours: ours, theirs: theirs, entity: client, policy: .mergeByPropertyObjectTrump)
    /// // .write: name "Acme Ltd" (ours, changed on both sides), city as theirs
    /// ```
    static func resolve(base: [StoredValue], ours: [StoredValue], theirs: [StoredValue],
                        entity: EntityDescription, policy: MergePolicy) -> Resolution {
        switch policy {
        case .error:
            return .conflict(conflicts(base: base, ours: ours, theirs: theirs, entity: entity))
        case .rollback:
            return .keepTheirs
        case .overwrite:
            return .write(ours)
        case .mergeByPropertyObjectTrump, .mergeByPropertyStoreTrump:
            var merged = theirs
            for i in merged.indices where i < ours.count && i < base.count {
                merged[i] = PropertyMerge.resolve(base: base[i], ours: ours[i], theirs: merged[i], policy: policy).value
            }
            return .write(merged)
        }
    }

    /// The properties changed both by us and in the store's row, to different values (to-many
    /// relationships never conflict: their additions and removals merge).
    static func conflicts(base: [StoredValue], ours: [StoredValue], theirs: [StoredValue],
                          entity: EntityDescription) -> [MergeConflict.PropertyConflict] {
        var properties: [MergeConflict.PropertyConflict] = []
        for (i, property) in entity.properties.enumerated() where i < ours.count && i < theirs.count {
            if case .relationship(let r) = property, r.isToMany { continue }
            let before = i < base.count ? base[i] : .null
            if PropertyMerge.resolve(base: before, ours: ours[i], theirs: theirs[i], policy: .error).isConflict {
                properties.append(.init(property: property.name, base: before, ours: ours[i], theirs: theirs[i]))
            }
        }
        return properties
    }

    /// What an insert whose unique key the store already holds becomes.
    enum InsertResolution: Equatable {
        /// Refuse with a uniqueness violation (`.error`).
        case refuse
        /// Become the existing row, with our values written over it (an upsert).
        case writeOurs
        /// Become the existing row as it is; our values are dropped.
        case adoptTheirs
    }

    /// The resolution of an insert that meets an existing row with its unique key.
    static func resolveInsert(policy: MergePolicy) -> InsertResolution {
        switch policy {
        case .error: .refuse
        case .mergeByPropertyObjectTrump, .overwrite: .writeOurs
        case .mergeByPropertyStoreTrump, .rollback: .adoptTheirs
        }
    }

    /// Whether a delete goes ahead when the row changed since it was read (`.error` refuses;
    /// every other policy deletes it anyway).
    static func deletesChangedRow(policy: MergePolicy) -> Bool {
        policy != .error
    }

    /// Whether an update of a row deleted elsewhere is a conflict (`.error`), rather than the
    /// object's changes being dropped with the row.
    static func refusesUpdateOfDeletedRow(policy: MergePolicy) -> Bool {
        policy == .error
    }
}
