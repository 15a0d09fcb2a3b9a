import Foundation

/// How one property merges when a save meets a change made elsewhere: a pure function of the
/// value the saver read (base), the saver's value (ours) and the value there now (theirs).
///
/// Both kinds of save use it: a child's save into its parent (theirs: the parent's value) and
/// a root save that finds the store's row changed (theirs: the store's value).
enum PropertyMerge {
    /// The merged value, and whether both sides changed the property to different values.
    struct Outcome: Equatable {
        let value: StoredValue
        let isConflict: Bool
    }

    /// Whether the saver changed the property: `.unloaded` (a to-many it never read) is no change.
    /// To-many destinations compare as sets, unless `ordered`: then a new order is a change.
    static func changedByUs(base: StoredValue, ours: StoredValue, ordered: Bool = false) -> Bool {
        if case .unloaded = ours { return false }
        if ordered, case .references(let mine) = ours, case .references(let before) = base { return mine != before }
        return !ManagedObject.sameValue(ours, base)
    }

    /// The value the property takes under `policy`.
    ///
    /// - A property only we changed takes ours; one only they changed keeps theirs.
    /// - Changed on both sides to different values, it is a conflict: ours under
    ///   `.mergeByPropertyObjectTrump` and `.overwrite`, theirs under the other policies
    ///   (`.error` refuses the save, `.rollback` drops the object's changes; the caller does
    ///   that, from `isConflict`).
    static func resolve(base: StoredValue, ours: StoredValue, theirs: StoredValue, policy: MergePolicy) -> Outcome {
        guard changedByUs(base: base, ours: ours) else { return Outcome(value: theirs, isConflict: false) }
        if case .unloaded = theirs { return Outcome(value: ours, isConflict: false) }
        let changedByThem = !ManagedObject.sameValue(theirs, base)
        guard changedByThem && !ManagedObject.sameValue(ours, theirs) else {
            return Outcome(value: ours, isConflict: false)
        }
        switch policy {
        case .mergeByPropertyObjectTrump, .overwrite: return Outcome(value: ours, isConflict: true)
        case .error, .mergeByPropertyStoreTrump, .rollback: return Outcome(value: theirs, isConflict: true)
        }
    }

    /// A to-many relationship never conflicts: our additions and removals apply to their
    /// current destinations, so two children adding invoices to one client both land. An
    /// ordered relationship takes our order, without what they removed, followed by what
    /// they added.
    static func mergedToMany(base: StoredValue, ours: StoredValue, theirs: StoredValue,
                             isOrdered: Bool = false) -> StoredValue {
        guard case .references(let mine) = ours else { return theirs }
        let before: [ObjectID] = { if case .references(let b) = base { return b } else { return [] } }()
        guard case .references(let current) = theirs else { return ours }
        let earlier = Set(before), now = Set(current), kept = Set(mine)
        if isOrdered {
            let removedByThem = earlier.subtracting(now)
            return .references(mine.filter { !removedByThem.contains($0) }
                               + current.filter { !earlier.contains($0) && !kept.contains($0) })
        }
        let removedByUs = earlier.subtracting(kept)
        return .references(current.filter { !removedByUs.contains($0) }
                           + mine.filter { !now.contains($0) && !earlier.contains($0) })
    }
}
