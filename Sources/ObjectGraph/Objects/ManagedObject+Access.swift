import Foundation

/// Why dynamic, string-keyed access to an object failed.
public enum PropertyAccessError: Error, CustomStringConvertible, Sendable, Equatable {
    case unknownKey(entity: String, key: String)
    case wrongValueType(entity: String, key: String, expected: String, got: String)
    case objectFromAnotherContext(entity: String, key: String)

    public var description: String {
        switch self {
        case .unknownKey(let entity, let key):
            return "\(entity) has no property named \"\(key)\"."
        case .wrongValueType(let entity, let key, let expected, let got):
            return "\(entity).\(key) holds \(expected); a value of type \(got) cannot be stored there."
        case .objectFromAnotherContext(let entity, let key):
            return "\(entity).\(key) was given an object of another context; look it up in this context with object(with:)."
        }
    }
}

extension ManagedObject {
    // MARK: Typed access (used by the property wrappers)

    // Entry points of the inlinable wrapper accessors: non-generic, so one call each.
    @usableFromInline
    final func _attributeValue(at index: Int) -> StoredValueBox { StoredValueBox(readValue(at: index)) }

    @usableFromInline
    final func _setAttributeValue(_ value: StoredValueBox, at index: Int) { writeValue(value.value, at: index) }

    @usableFromInline
    final func _relatedObjects(at index: Int) -> [ManagedObject] { relatedObjects(at: index) }

    @usableFromInline
    final func _setRelatedObjects(_ objects: [ManagedObject], at index: Int) { setRelatedObjects(objects, at: index) }

    final func readValue(at index: Int) -> StoredValue {
        if lifecycle != .loaded {
            if lifecycle == .prototype { return prototypeRead(at: index) }
            managedObjectContext?.fulfillFault(self)
        }
        if ConcurrencyDebug.isEnabled { ConcurrencyDebug.check(self) }
        guard index < values.count else { return .null }
        return values[index]
    }

    final func writeValue(_ value: StoredValue, at index: Int) {
        if lifecycle != .loaded {
            if lifecycle == .prototype { return }
            managedObjectContext?.fulfillFault(self)
        }
        if ConcurrencyDebug.isEnabled { ConcurrencyDebug.check(self) }
        guard Self.replace(&values, at: index, with: value) else { return }
        managedObjectContext?.objectDidChange(self)
    }

    /// Writes `value` at `index` unless it is there already; whether it wrote. One access to
    /// the values for the test and the write: each access to a class's stored property is
    /// checked for exclusivity at run time, and the two were a tenth of an insert's work.
    @inline(__always)
    private static func replace(_ values: inout [StoredValue], at index: Int, with value: StoredValue) -> Bool {
        guard index < values.count, values[index] != value else { return false }
        values[index] = value
        return true
    }

    final func relatedObjects(at index: Int) -> [ManagedObject] {
        if lifecycle == .prototype {
            _ = prototypeRead(at: index)
            let state = ThreadState.current
            return state.recordingRegistry?.destinationPrototype(of: self, at: index).map { [$0] } ?? []
        }
        guard let context = managedObjectContext else { return [] }
        return context.relatedObjects(of: self, at: index)
    }

    final func setRelatedObjects(_ objects: [ManagedObject], at index: Int) {
        guard lifecycle != .prototype, let context = managedObjectContext else { return }
        context.setRelatedObjects(objects, of: self, at: index)
    }

    private func prototypeRead(at index: Int) -> StoredValue {
        let state = ThreadState.current
        state.recordedPath?.append((ObjectIdentifier(self), index))
        if let probe = state.probe, probe.prototype == ObjectIdentifier(self), probe.index == index { return probe.value }
        return .null
    }

    // MARK: Dynamic access

    /// The value of the property named `key`: attribute values as their Swift type (nil for
    /// nil), a to-one destination as a `ManagedObject`, a to-many as `[ManagedObject]`.
    /// - Throws: ``PropertyAccessError/unknownKey(entity:key:)``.
    public func value(forKey key: String) throws -> Any? {
        guard let index = entity.propertyIndex(named: key) else {
            throw PropertyAccessError.unknownKey(entity: entity.name, key: key)
        }
        switch entity.properties[index] {
        case .attribute:
            return readValue(at: index).anyValue
        case .relationship(let r):
            let objects = relatedObjects(at: index)
            return r.isToMany ? objects as Any : objects.first as Any?
        }
    }

    /// Sets the property named `key`. Integers convert to `Int64`/`Double`/`Decimal`
    /// attributes where exact; relationships take a `ManagedObject` (to-one, or nil) or an
    /// array or set of them (to-many).
    /// - Throws: ``PropertyAccessError`` for an unknown key, a value of the wrong type, or
    ///   an object of another context.
    public func setValue(_ value: Any?, forKey key: String) throws {
        guard let index = entity.propertyIndex(named: key) else {
            throw PropertyAccessError.unknownKey(entity: entity.name, key: key)
        }
        switch entity.properties[index] {
        case .attribute(let a):
            guard let stored = StoredValue(any: value, as: a.type), !(stored.isNull && !a.isOptional) else {
                throw PropertyAccessError.wrongValueType(
                    entity: entity.name, key: key,
                    expected: a.type.rawValue + (a.isOptional ? "?" : ""),
                    got: value.map { "\(type(of: $0))" } ?? "nil")
            }
            writeValue(stored, at: index)
        case .relationship(let r):
            let objects: [ManagedObject]
            switch value {
            case nil: objects = []
            case let object as ManagedObject where !r.isToMany: objects = [object]
            case let array as [ManagedObject] where r.isToMany: objects = array
            case let set as Set<ManagedObject> where r.isToMany: objects = Array(set)
            default:
                throw PropertyAccessError.wrongValueType(
                    entity: entity.name, key: key,
                    expected: r.isToMany ? "[\(r.destinationEntityName)]" : "\(r.destinationEntityName)?",
                    got: value.map { "\(type(of: $0))" } ?? "nil")
            }
            for object in objects {
                guard object.entity.name == r.destinationEntityName else {
                    throw PropertyAccessError.wrongValueType(
                        entity: entity.name, key: key, expected: r.destinationEntityName, got: object.entity.name)
                }
                guard object.managedObjectContext === managedObjectContext else {
                    throw PropertyAccessError.objectFromAnotherContext(entity: entity.name, key: key)
                }
            }
            setRelatedObjects(objects, at: index)
        }
    }

    /// The IDs of a relationship's destinations, without turning them into objects (no
    /// faults are made; a to-many relationship not loaded yet is loaded as IDs).
    /// - Throws: ``PropertyAccessError/unknownKey(entity:key:)`` when `name` is not a relationship.
    public func objectIDs(forRelationshipNamed name: String) throws -> [ObjectID] {
        guard let index = entity.propertyIndex(named: name), entity.links[index] != nil else {
            throw PropertyAccessError.unknownKey(entity: entity.name, key: name)
        }
        if lifecycle == .fault { managedObjectContext?.fulfillFault(self) }
        if ConcurrencyDebug.isEnabled { ConcurrencyDebug.check(self) }
        switch values[index] {
        case .reference(let id): return [id]
        case .references(let ids): return ids
        case .unloaded: return managedObjectContext?.loadToMany(of: self, at: index) ?? []
        default: return []
        }
    }

    /// The properties whose current value differs from the committed one, by name.
    /// To-one relationships appear as the destination's `ObjectID`, to-many as `[ObjectID]`.
    public func changedValues() -> [String: Any?] {
        guard lifecycle == .loaded else { return [:] }
        var result: [String: Any?] = [:]
        for (i, property) in entity.properties.enumerated() where i < values.count {
            let base: StoredValue = i < baseValues.count ? baseValues[i] : .unloaded
            if isInsertedFlag || !Self.sameValue(values[i], base) {
                if case .unloaded = values[i] { continue }
                result.updateValue(values[i].anyValue, forKey: property.name)
            }
        }
        return result
    }

    /// The committed values (as last loaded or saved) of `keys`, or of every property when nil.
    public func committedValues(forKeys keys: [String]? = nil) -> [String: Any?] {
        if lifecycle == .fault { managedObjectContext?.fulfillFault(self) }
        var result: [String: Any?] = [:]
        for (i, property) in entity.properties.enumerated() where keys?.contains(property.name) ?? true {
            result.updateValue(i < baseValues.count ? baseValues[i].anyValue : nil, forKey: property.name)
        }
        return result
    }

    /// Two stored values compare equal; to-many relationships compare as sets unless ordered.
    package static func sameValue(_ a: StoredValue, _ b: StoredValue) -> Bool {
        if case .references(let x) = a, case .references(let y) = b {
            return x.count == y.count && Set(x) == Set(y)
        }
        return a == b
    }
}
