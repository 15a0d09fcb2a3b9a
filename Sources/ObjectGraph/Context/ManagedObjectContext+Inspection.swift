import Foundation

// Read-only introspection for tools such as the dashboard's live context inspector: what a
// context holds, what it would save, and how the store file changes under other connections.
//
// Everything here returns `Sendable` values, read on the context's queue, so a tool reads a
// context inside `perform` and renders the result anywhere. Nothing here changes a context:
// no fault fires, no object is registered, nothing is saved.

/// A property value as a context holds it, for display: the typed value, never a managed
/// object.
public enum InspectedValue: Sendable, Hashable, CustomStringConvertible {
    case null
    case bool(Bool)
    case integer(Int64)
    case double(Double)
    case string(String)
    case date(Date)
    case decimal(Decimal)
    case uuid(UUID)
    /// Binary data, by size only.
    case data(byteCount: Int)
    /// A to-one relationship's destination.
    case reference(ObjectID)
    /// A to-many relationship's destinations.
    case references([ObjectID])
    /// A to-many relationship that is not loaded in this context (a relationship fault).
    case notLoaded

    init(_ stored: StoredValue) {
        switch stored {
        case .null: self = .null
        case .bool(let v): self = .bool(v)
        case .int(let v): self = .integer(v)
        case .double(let v): self = .double(v)
        case .string(let v): self = .string(v)
        case .date(let v): self = .date(v)
        case .decimal(let v): self = .decimal(v)
        case .uuid(let v): self = .uuid(v)
        case .data(let v): self = .data(byteCount: v.count)
        case .reference(let id): self = .reference(id)
        case .references(let ids): self = .references(ids)
        case .unloaded: self = .notLoaded
        }
    }

    /// Plain text: strings as they are (no quotes), `nil`, dates in ISO 8601, IDs as
    /// `Client/p42` or `Client/t1a2b3c4d`. Not escaped for any format.
    public var description: String {
        switch self {
        case .null: return "nil"
        case .bool(let v): return String(v)
        case .integer(let v): return String(v)
        case .double(let v): return String(v)
        case .string(let v): return v
        case .date(let v): return v.formatted(.iso8601)
        case .decimal(let v): return "\(v)"
        case .uuid(let v): return v.uuidString
        case .data(let count): return "\(count) bytes"
        case .reference(let id): return id.description
        case .references(let ids): return "[" + ids.map(\.description).joined(separator: ", ") + "]"
        case .notLoaded: return "(not loaded)"
        }
    }
}

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
        let updated = changed.values.filter { $0.isUpdated && !$0.isDeletedFlag }
            .sorted { $0.objectID.description < $1.objectID.description }
        let deletedObjects = deleted.values.sorted { $0.objectID.description < $1.objectID.description }
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
        var failures: [ValidationFailure] = []
        do { try validatePendingChanges() } catch SaveError.validationFailed(let found) {
            failures = found
        } catch {
            failures = [ValidationFailure(property: nil, message: "\(error)")]
        }
        guard let parent else {
            return SaveCheck(validationFailures: failures, uniquenessViolation: nil, conflicts: [], parentValues: [:],
                             mergePolicy: mergePolicy)
        }
        let updatedObjects = changed.values.filter { $0.isUpdated && !$0.isDeletedFlag }
        var uniqueness: SaveError?
        do {
            try checkUniqueness(of: inserted.values.map { $0 } + updatedObjects)
        } catch let error as SaveError {
            uniqueness = error
        } catch {
            uniqueness = .uniquenessViolation(entity: "", properties: [], message: "\(error)")
        }
        let updates = updatedObjects.map {
            PushedObject(id: $0.objectID, entity: $0.entity, values: $0.values, base: $0.baseValues)
        }
        // The values the parent would merge against, read on its queue (as a save would).
        let theirs: [ObjectID: [StoredValue]?] = parent.performAndWait {
            var found: [ObjectID: [StoredValue]?] = [:]
            for update in updates { found[update.id] = .some(parent.snapshotForChild(update.id)?.values) }
            return found
        }
        var conflicts: [MergeConflict] = []
        var parentValues: [ObjectID: [String: InspectedValue]?] = [:]
        for update in updates {
            guard case .some(.some(let current)) = theirs[update.id] else {
                conflicts.append(MergeConflict(objectID: update.id, deletedElsewhere: true, expectedVersion: 0,
                                               foundVersion: nil, properties: []))
                parentValues[update.id] = .some(nil)
                continue
            }
            var values: [String: InspectedValue] = [:]
            var clashes: [MergeConflict.PropertyConflict] = []
            for (i, property) in update.entity.properties.enumerated()
            where i < update.values.count && i < update.base.count && i < current.count {
                let ours = update.values[i], base = update.base[i], parentValue = current[i]
                if case .unloaded = ours { continue }
                guard !ManagedObject.sameValue(ours, base) else { continue }
                // To-many changes never conflict: a save applies them to the parent's set.
                if case .relationship(let r) = property, r.isToMany { continue }
                if case .unloaded = parentValue { continue }
                values[property.name] = InspectedValue(parentValue)
                if !ManagedObject.sameValue(parentValue, base) && !ManagedObject.sameValue(ours, parentValue) {
                    clashes.append(.init(property: property.name, base: base.displayString, ours: ours.displayString,
                                         theirs: parentValue.displayString))
                }
            }
            parentValues[update.id] = .some(values)
            if !clashes.isEmpty {
                conflicts.append(MergeConflict(objectID: update.id, deletedElsewhere: false, expectedVersion: 0,
                                               foundVersion: nil, properties: clashes))
            }
        }
        return SaveCheck(validationFailures: failures, uniquenessViolation: uniqueness, conflicts: conflicts,
                         parentValues: parentValues, mergePolicy: mergePolicy)
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
