import ObjectGraph

/// What saving a scratchpad came to (``InvoicesStack/save(_:policy:)``).
///
/// Whatever the outcome but `.saved`, nothing of the scratchpad reached main, the writer or
/// the file, and the scratchpad still holds every change: the visitor's form stays open with
/// their input.
public enum SaveOutcome: Sendable {
    /// Saved: in the file when the stack persists immediately; held by the writer until its
    /// next flush with deferred persistence.
    case saved
    /// Validation failed; every failure of the save is listed.
    case invalid([ValidationFailure])
    /// Another object already has a value that must be unique.
    case duplicate(UniquenessViolation)
    /// Someone changed the same properties meanwhile: in this process, or in the file (another
    /// server or process). "Theirs" is what main or the file holds now.
    case conflict([MergeConflict])
    /// The store cannot take the write now, and will by itself later (``StoreOutage``): the
    /// file stayed locked by another process past the busy timeout, the database server is
    /// down or restarting, or other servers' transactions kept aborting this one.
    case busy(StoreError)
    /// The store refused the write otherwise (an I/O error, a constraint only the file knows),
    /// with the reason in words for the visitor (``StoreFailureReason``); the error itself is logged.
    case failed(String)
}
