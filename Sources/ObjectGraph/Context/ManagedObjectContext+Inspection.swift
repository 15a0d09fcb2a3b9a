import Foundation

// Read-only introspection for tools such as the dashboard's live context inspector: what a
// context holds, what it would save, and how the store file changes under other connections.
//
// Everything here returns `Sendable` values, read on the context's queue, so a tool reads a
// context inside `perform` and renders the result anywhere. Nothing here changes a context:
// no fault fires, no object is registered, nothing is saved.

/// One property of an object as a context holds it.
public struct InspectedProperty: Sendable, Hashable {
    public let name: String
    /// The context's current value.
    public let value: InspectedValue
    /// The value the context started from: as last read from its parent (or the store) or
    /// saved. A child compares it with its parent's current value to find conflicts.
    public let committedValue: InspectedValue
    public let isRelationship: Bool
    /// Whether the current value differs from the committed one (always true for every
    /// property of an inserted object).
    public let isChanged: Bool
}

/// An object as one context holds it.
public struct InspectedObject: Sendable, Hashable {
    /// Where the object stands in this context.
    public enum State: String, Sendable, Hashable, Codable {
        /// Registered, values not loaded (no properties are listed).
        case fault
        case unchanged, inserted, updated, deleted
    }

    public let objectID: ObjectID
    public let state: State
    /// The row was deleted by another context or process since this context read it.
    public let isDeletedElsewhere: Bool
    /// The row version the committed values were read at (0 for inserted objects).
    public let rowVersion: Int64
    /// Every property in model order; empty for a fault.
    public let properties: [InspectedProperty]

    /// The properties whose value differs from the committed one.
    public var changedProperties: [InspectedProperty] { properties.filter(\.isChanged) }
}

/// What one context holds: read with ``ManagedObjectContext/inspect(pendingChangeLimit:)``.
public struct ContextInspection: Sendable {
    public let name: String?
    public let concurrencyType: ManagedObjectContext.ConcurrencyType
    /// Whether the context saves to the store (no parent context).
    public let isRoot: Bool
    public let registeredObjectCount: Int
    public let mergePolicy: MergePolicy
    public let automaticallyMergesChangesFromParent: Bool
    public let insertedCount: Int
    public let updatedCount: Int
    public let deletedCount: Int
    /// Inserted (in insertion order), then updated, then deleted objects (each by ID), at
    /// most the limit asked for; the counts above are always complete.
    public let pendingChanges: [InspectedObject]

    public var pendingChangeCount: Int { insertedCount + updatedCount + deletedCount }
    public var hasChanges: Bool { pendingChangeCount > 0 }
}

/// Whether a context's `save()` would succeed now: read with
/// ``ManagedObjectContext/checkSave()``.
public struct SaveCheck: Sendable {
    /// Every validation failure of the pending changes (what `save()` would throw first).
    public let validationFailures: [ValidationFailure]
    /// The uniqueness clash a child's save would report (`SaveError.uniquenessViolation`).
    public let uniquenessViolation: SaveError?
    /// Properties this context changed that its parent changed too since it read them, and
    /// objects the parent no longer has: what a save with `.error` would refuse. Always
    /// empty for a root context (conflicts with the store are found at save).
    public let conflicts: [MergeConflict]
    /// For each updated object of a child context, the parent's current value of each
    /// attribute and to-one relationship the child changed, by name (to-many relationships
    /// never conflict and are left out); nil when the parent no longer has the object.
    /// Empty for a root context (its committed values are the store's, as it last read them).
    public let parentValues: [ObjectID: [String: InspectedValue]?]
    /// The merge policy the save would use.
    public let mergePolicy: MergePolicy

    /// Whether `save()` would succeed now (with the current merge policy).
    public var wouldSave: Bool {
        validationFailures.isEmpty && uniquenessViolation == nil && (conflicts.isEmpty || mergePolicy != .error)
    }
}

extension ManagedObjectContext {
    /// What this context holds now: its kind, registered objects, and pending changes with
    /// each changed property beside its committed value.
    ///
    /// Call it on the context's queue (inside `perform`). It reads only this context's own
    /// memory: no fault fires, no SQL runs, no other queue is waited for, so inspecting the
    /// main context never holds up the main queue.
    ///
    /// ```swift
    /// let picture = await main.perform { main.inspect(pendingChangeLimit: 100) }
    /// for change in picture.pendingChanges { print(change.objectID, change.state) }
    /// ```
    public func inspect(pendingChangeLimit: Int = .max) -> ContextInspection {
        ConcurrencyDebug.checkIfEnabled(self, "inspect(pendingChangeLimit:)")
        let insertedObjects = orderedInsertedObjects
        let updated = pending.updates.sorted { $0.objectID.description < $1.objectID.description }
        let deletedObjects = pending.deleted.values.sorted { $0.objectID.description < $1.objectID.description }
        var pending: [InspectedObject] = []
        let limit = max(0, pendingChangeLimit)
        for object in insertedObjects + updated + deletedObjects {
            guard pending.count < limit else { break }
            pending.append(Self.inspected(object))
        }
        return ContextInspection(
            name: name, concurrencyType: concurrencyType, isRoot: parent == nil,
            registeredObjectCount: registryLock.withLock { registry.count },
            mergePolicy: mergePolicy, automaticallyMergesChangesFromParent: automaticallyMergesChangesFromParent,
            insertedCount: insertedObjects.count, updatedCount: updated.count, deletedCount: deletedObjects.count,
            pendingChanges: pending)
    }

    /// The objects with these IDs that this context has registered (temporary IDs that
    /// became permanent still resolve), as it holds them. IDs it does not hold are left out;
    /// faults are listed without properties and stay faults.
    ///
    /// Call it on the context's queue. No I/O, no waiting on other queues.
    public func inspectRegisteredObjects(_ ids: [ObjectID]) -> [ObjectID: InspectedObject] {
        ConcurrencyDebug.checkIfEnabled(self, "inspectRegisteredObjects(_:)")
        var result: [ObjectID: InspectedObject] = [:]
        for id in ids {
            guard let object = registeredObject(for: id) else { continue }
            result[id] = Self.inspected(object)
        }
        return result
    }

    /// Whether `save()` would succeed now, and if not why, without saving: the same
    /// validation, uniqueness and conflict checks a save runs, with nothing changed here or
    /// in the parent.
    ///
    /// Call it on the context's queue. Like a child's save, it takes a brief hop onto the
    /// parent's queue to read the parent's current values, and looks up uniqueness clashes in
    /// the store; validation may load a to-many relationship that has a count rule. A root
    /// context's check runs validation only.
    public func checkSave() -> SaveCheck {
        ConcurrencyDebug.checkIfEnabled(self, "checkSave()")
        let failures = validationFailures()
        guard let parent else {
            return SaveCheck(validationFailures: failures, uniquenessViolation: nil, conflicts: [], parentValues: [:],
                             mergePolicy: mergePolicy)
        }
        let unit = makeSaveUnit()
        let (uniqueness, conflicts, parentValues) = parent.performAndWait { parent.dryRun(of: unit) }
        return SaveCheck(validationFailures: failures, uniquenessViolation: uniqueness, conflicts: conflicts,
                         parentValues: parentValues, mergePolicy: mergePolicy)
    }

    /// Whether `save()` would succeed now, checked from outside the context's queue without
    /// holding a thread: validation runs in a block of this context, the parent's side in a
    /// block of the parent, one after the other (`await perform` each), where the synchronous
    /// ``checkSave()`` waits on the parent's queue from inside this one's. For tools that check
    /// many contexts at once (an inspector).
    public func checkSave() async -> SaveCheck {
        let (failures, unit, policy) = await perform(schedule: .enqueued) {
            () -> ([ValidationFailure], SaveUnit?, MergePolicy) in
            (self.validationFailures(), self.parent == nil ? nil : self.makeSaveUnit(), self.mergePolicy)
        }
        guard let parent, let unit else {
            return SaveCheck(validationFailures: failures, uniquenessViolation: nil, conflicts: [], parentValues: [:],
                             mergePolicy: policy)
        }
        let (uniqueness, conflicts, parentValues) = await parent.perform(schedule: .enqueued) { parent.dryRun(of: unit) }
        return SaveCheck(validationFailures: failures, uniquenessViolation: uniqueness, conflicts: conflicts,
                         parentValues: parentValues, mergePolicy: policy)
    }

    /// The failures validating the pending changes finds (none when a save would pass it).
    private func validationFailures() -> [ValidationFailure] {
        do { try validatePendingChanges() } catch SaveError.validationFailed(let found) {
            return found
        } catch {
            return [ValidationFailure(property: nil, message: "\(error)")]
        }
        return []
    }

    /// What receiving `unit` would meet here, without receiving it: the uniqueness clash, the
    /// conflicts under `.error` (the same planning a save runs), and this context's current
    /// value of each attribute and to-one the child changed. On this context's queue.
    private func dryRun(of unit: SaveUnit) -> (SaveError?, [MergeConflict], [ObjectID: [String: InspectedValue]?]) {
        var uniqueness: SaveError?
        do { try checkUniqueness(ofIncoming: unit) } catch let error as SaveError { uniqueness = error } catch {
            uniqueness = .storeFailure(.invalidConfiguration("\(error)"))
        }
        var strict = unit
        strict.policy = .error
        var conflicts: [MergeConflict] = []
        var held: [ManagedObject] = []
        do { _ = try plan(strict, materializing: false, holding: &held) } catch SaveError.mergeConflict(let found) {
            conflicts = found
        } catch {}
        var parentValues: [ObjectID: [String: InspectedValue]?] = [:]
        for change in unit.changes where change.kind == .update {
            guard let current = view(of: change.id, materializing: false, holding: &held), !current.isGone else {
                parentValues[change.id] = .some(nil)
                continue
            }
            var values: [String: InspectedValue] = [:]
            for (i, property) in change.entity.properties.enumerated()
            where i < change.values.count && i < change.base.count && i < current.values.count {
                // To-many changes never conflict: a save applies them to the parent's set.
                if case .relationship(let r) = property, r.isToMany { continue }
                guard PropertyMerge.changedByUs(base: change.base[i], ours: change.values[i]) else { continue }
                values[property.name] = InspectedValue(current.values[i])
            }
            parentValues[change.id] = .some(values)
        }
        return (uniqueness, conflicts, parentValues)
    }

    private static func inspected(_ object: ManagedObject) -> InspectedObject {
        let state: InspectedObject.State
        if object.isDeletedFlag { state = .deleted }
        else if object.isInsertedFlag { state = .inserted }
        else if object.lifecycle != .loaded { state = .fault }
        else if object.isUpdated { state = .updated }
        else { state = .unchanged }
        var properties: [InspectedProperty] = []
        if object.lifecycle == .loaded {
            properties.reserveCapacity(object.entity.properties.count)
            for (i, property) in object.entity.properties.enumerated() where i < object.values.count {
                let value = object.values[i]
                let base: StoredValue = i < object.baseValues.count ? object.baseValues[i] : .unloaded
                let isRelationship: Bool
                if case .relationship = property { isRelationship = true } else { isRelationship = false }
                let changed: Bool
                if case .unloaded = value { changed = false }
                else { changed = object.isInsertedFlag || !ManagedObject.sameValue(value, base) }
                properties.append(InspectedProperty(name: property.name, value: InspectedValue(value),
                                                    committedValue: InspectedValue(base),
                                                    isRelationship: isRelationship, isChanged: changed))
            }
        }
        return InspectedObject(objectID: object.objectID, state: state,
                               isDeletedElsewhere: object.isDeletedElsewhereFlag, rowVersion: object.rowVersion,
                               properties: properties)
    }
}

extension ObjectID {
    /// Parses a URI made by ``uriRepresentation()``, temporary IDs included (for tools that
    /// name an object in a URL); nil when it is not an ObjectGraph object URI. Unlike
    /// ``PersistentStoreCoordinator/managedObjectID(forURIRepresentation:)`` it does not
    /// check that a store knows the ID.
    public init?(uriRepresentation uri: URL) {
        self.init(uri: uri)
    }
}
