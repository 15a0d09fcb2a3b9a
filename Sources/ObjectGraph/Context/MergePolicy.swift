import Foundation

/// How a save resolves a conflict: a property this context changed that was also changed
/// elsewhere (in the store, by another context or process) since this context read it.
public enum MergePolicy: Sendable, Equatable {
    /// Fail the save and list every conflict (CD 133020). The default.
    case error
    /// Properties changed on both sides take the store's value; our other changes are kept.
    case mergeByPropertyStoreTrump
    /// Properties changed on both sides take our value; the store's other changes are kept.
    case mergeByPropertyObjectTrump
    /// Our changes win whatever changed elsewhere. Into a parent context, the properties this
    /// context changed are written and the parent's edits of other properties stay (Core
    /// Data's child save); into the store, the whole object is written.
    case overwrite
    /// Our changes to conflicting objects are dropped; the other objects are still saved.
    case rollback
}
