import Foundation
import Synchronization

/// A row of the old version, as a custom stage reads it: its ID and its stored values,
/// read through the old version's classes' key paths.
///
/// ```swift
/// let amount = try invoice[\.amount]                 // Decimal, as V2.Invoice declares it
/// let client = try invoice.destination(\.client)     // the client's ObjectID, or nil
/// ```
///
/// A value, not an object: it belongs to no context and may be used on any queue.
public struct MigrationRow<Source: ManagedObject>: Sendable {
    /// The row's object ID. A custom stage renames nothing, so it is the ID of the same
    /// object in the new version: `context.object(with: row.objectID)`.
    public let objectID: ObjectID
    let values: [StoredValue]
    let entity: EntityDescription
    let model: ManagedObjectModel
    let stage: String
    let keyPaths: MigrationKeyPaths

    /// The row's primary key.
    public var primaryKey: Int64 { objectID.primaryKey ?? 0 }

    /// The value of an attribute of the old version.
    /// - Throws: ``MigrationError/stageFailed(_:)`` when the key path is not a stored
    ///   attribute of the old class, or the file holds nil for a non-optional attribute.
    public subscript<Value: AttributeValue>(_ keyPath: KeyPath<Source, Value>) -> Value {
        get throws {
            let (index, name) = try property(keyPath)
            let stored = values[index]
            if let value = Value(storedValue: StoredValueBox(stored)) { return value }
            throw failure(name, stored, stored.isNull ? .missingValue : .stageError("\(name) does not hold a \(Value.self)"))
        }
    }

    /// The object ID of a to-one relationship's destination in the old version; nil when
    /// it has none.
    public func destination<Destination: ManagedObject>(_ keyPath: KeyPath<Source, Destination?>) throws -> ObjectID? {
        let (index, name) = try property(keyPath)
        switch values[index] {
        case .reference(let id): return id
        case .null: return nil
        default: throw failure(name, values[index], .stageError("\(name) is not a to-one relationship"))
        }
    }

    private func property(_ keyPath: AnyKeyPath) throws -> (Int, String) {
        guard let (index, name) = keyPaths.resolve(keyPath, in: entity, model: model), index < values.count else {
            throw failure(nil, nil, .stageError("\(keyPath) is not a stored property of \(entity.name) in version \(model.version)"))
        }
        return (index, name)
    }

    private func failure(_ property: String?, _ value: StoredValue?, _ reason: MigrationFailure.Reason) -> MigrationError {
        MigrationError.stageFailed(MigrationFailure(stage: stage, entity: entity.name, primaryKey: primaryKey,
                                                    property: property, value: value.map(InspectedValue.init), reason: reason))
    }
}

/// The properties key paths name, resolved once per migration rather than once per row.
///
/// @unchecked Sendable: `resolved` is only touched while `lock` is held (key paths are not
/// `Sendable`, so they cannot live in the `Locked` value).
final class MigrationKeyPaths: @unchecked Sendable {
    private let lock = Locked()
    private var resolved: [AnyKeyPath: (index: Int, name: String)?] = [:]

    func resolve(_ keyPath: AnyKeyPath, in entity: EntityDescription, model: ManagedObjectModel) -> (Int, String)? {
        lock.withLock {
            if let known = resolved[keyPath] { return known }
            let property = model.property(for: keyPath)
            let found = property.flatMap { p in entity.propertyIndexByName[p.name].map { ($0, p.name) } }
            resolved[keyPath] = .some(found)
            return found
        }
    }
}
