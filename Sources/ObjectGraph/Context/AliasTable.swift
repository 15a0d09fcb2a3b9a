/// The temporary IDs of a context's objects that became permanent, so that an old ID keeps
/// resolving in the context (see ``ManagedObjectContext/registeredObject(for:)``).
///
/// A save adds its whole temporary → permanent map as one batch, kept as the store made it:
/// a save of N new objects costs one append here, not N insertions. Look-ups try the batches
/// in turn; past a few batches they are merged into one dictionary, so look-ups stay cheap
/// however many saves a context makes. Only temporary IDs are ever keys.
///
/// Guarded by the context's `registryLock`, like the registry it completes.
struct AliasTable {
    private var merged: [ObjectID: ObjectID] = [:]
    private var batches: [[ObjectID: ObjectID]] = []
    private static let batchLimit = 8

    var isEmpty: Bool { merged.isEmpty && batches.isEmpty }

    subscript(id: ObjectID) -> ObjectID? {
        guard id.isTemporaryID else { return nil }
        if !merged.isEmpty, let permanent = merged[id] { return permanent }
        for batch in batches.reversed() {
            if let permanent = batch[id] { return permanent }
        }
        return nil
    }

    mutating func add(_ temporary: ObjectID, _ permanent: ObjectID) {
        merged[temporary] = permanent
    }

    /// Adds a save's map of temporary to permanent IDs (keys not registered here are harmless:
    /// they name the same rows).
    mutating func add(batch: [ObjectID: ObjectID]) {
        guard !batch.isEmpty else { return }
        if batches.count >= Self.batchLimit {
            for old in batches { merged.merge(old) { _, new in new } }
            batches.removeAll()
        }
        batches.append(batch)
    }

    mutating func removeAll() {
        merged.removeAll()
        batches.removeAll()
    }
}
