import Foundation

/// Why an archive of unsaved changes could not be read back.
public enum UnsavedChangesArchiveError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The bytes are not an archive this version wrote (damaged, or not an archive at all).
    case unreadable(String)
    /// The archive names an entity this model lacks, or one whose properties differ (written
    /// by another version of the app): the changes cannot be adopted here.
    case modelMismatch(entity: String)

    public var description: String {
        switch self {
        case .unreadable(let reason):
            "The archived changes cannot be read (\(reason)); they were not written by this version of the program."
        case .modelMismatch(let entity):
            "The archived changes name \(entity) as another model version declares it; open the object again."
        }
    }
}

extension UnsavedChanges {
    /// The changes as bytes (JSON) another process can read back with
    /// ``init(archived:model:)`` and adopt (``ManagedObjectContext/adopt(_:)``): each
    /// object's ID (temporary ones included), its values, the committed values they were made
    /// from and the row version those were read at. Decimals, dates and data keep every bit.
    public func archived() throws -> Data {
        let archive = changes.map { item in
            ArchivedChange(id: item.change.id, entity: item.change.entity.name, kind: item.kind,
                           properties: item.change.entity.properties.map(\.name),
                           values: item.change.values.map(ArchivedValue.init),
                           base: item.change.base.map(ArchivedValue.init), version: item.change.version)
        }
        return try JSONEncoder().encode(archive)
    }

    /// Reads back ``archived()``'s bytes for a context of `model`.
    /// - Throws: ``UnsavedChangesArchiveError``.
    public init(archived data: Data, model: ManagedObjectModel) throws(UnsavedChangesArchiveError) {
        let archive: [ArchivedChange]
        do {
            archive = try JSONDecoder().decode([ArchivedChange].self, from: data)
        } catch {
            throw .unreadable("\(error)")
        }
        var unit = SaveUnit()
        for item in archive {
            guard let entity = model.entity(named: item.entity), entity.properties.map(\.name) == item.properties,
                  item.id.entityName == item.entity else {
                throw .modelMismatch(entity: item.entity)
            }
            let kind: SaveUnit.Change.Kind = switch item.kind {
            case .inserted: .insert
            case .updated: .update
            case .deleted: .delete
            }
            unit.changes.append(.init(id: item.id, entity: entity, kind: kind, values: item.values.map(\.stored),
                                      base: item.base.map(\.stored), version: item.version))
        }
        self.init(unit)
    }
}

extension ManagedObjectContext {
    /// What this context holds for a form to be rebuilt elsewhere: its unsaved changes (as
    /// ``unsavedChanges(of:)``, of every object), plus the committed values of the objects
    /// `read` names that are registered here but unchanged (faults are loaded), as updates
    /// with nothing changed; IDs this context cannot find are left out. A
    /// context that adopts the result starts from the values this one read, at their row
    /// versions, so a later save meets what changed since as a conflict. Call it on the
    /// context's queue.
    public func workingState(including read: Set<ObjectID>) -> UnsavedChanges {
        ConcurrencyDebug.checkIfEnabled(self, "workingState(including:)")
        processPendingChanges()
        var unit = makeSaveUnit()
        let changed = unit.ids
        for id in read {
            guard !changed.contains(id), let object = try? existingObject(with: id), !changed.contains(object.objectID),
                  !object.isInsertedFlag, !object.isDeletedFlag else { continue }
            unit.changes.append(.init(id: object.objectID, entity: object.entity, kind: .update,
                                      values: object.baseValues, base: object.baseValues, version: object.rowVersion))
        }
        return UnsavedChanges(unit)
    }
}

/// One change in an archive.
private struct ArchivedChange: Codable {
    let id: ObjectID
    let entity: String
    let kind: UnsavedChanges.Change.Kind
    /// The entity's property names in order, checked against the reading model.
    let properties: [String]
    let values: [ArchivedValue]
    let base: [ArchivedValue]
    let version: Int64
}

/// A ``StoredValue`` in an archive: a one-letter tag and its value, exact for every type.
private struct ArchivedValue: Codable {
    let stored: StoredValue

    init(_ stored: StoredValue) { self.stored = stored }

    private enum Key: String, CodingKey { case t, v }

    func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        switch stored {
        case .null: try c.encode("n", forKey: .t)
        case .unloaded: try c.encode("u", forKey: .t)
        case .bool(let v): try c.encode("b", forKey: .t); try c.encode(v, forKey: .v)
        case .int(let v): try c.encode("i", forKey: .t); try c.encode(v, forKey: .v)
        case .double(let v): try c.encode("f", forKey: .t); try c.encode(v.bitPattern, forKey: .v)
        case .string(let v): try c.encode("s", forKey: .t); try c.encode(v, forKey: .v)
        case .date(let v): try c.encode("d", forKey: .t); try c.encode(v.timeIntervalSinceReferenceDate.bitPattern, forKey: .v)
        case .decimal(let v): try c.encode("m", forKey: .t); try c.encode(DecimalText.text(of: v) ?? v.description, forKey: .v)
        case .uuid(let v): try c.encode("g", forKey: .t); try c.encode(v, forKey: .v)
        case .data(let v): try c.encode("x", forKey: .t); try c.encode(v, forKey: .v)
        case .reference(let v): try c.encode("r", forKey: .t); try c.encode(v, forKey: .v)
        case .references(let v): try c.encode("R", forKey: .t); try c.encode(v, forKey: .v)
        }
    }

    init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        switch try c.decode(String.self, forKey: .t) {
        case "n": stored = .null
        case "u": stored = .unloaded
        case "b": stored = .bool(try c.decode(Bool.self, forKey: .v))
        case "i": stored = .int(try c.decode(Int64.self, forKey: .v))
        case "f": stored = .double(Double(bitPattern: try c.decode(UInt64.self, forKey: .v)))
        case "s": stored = .string(try c.decode(String.self, forKey: .v))
        case "d": stored = .date(Date(timeIntervalSinceReferenceDate: Double(bitPattern: try c.decode(UInt64.self, forKey: .v))))
        case "m":
            let text = try c.decode(String.self, forKey: .v)
            guard let value = Array(text.utf8).withUnsafeBufferPointer(DecimalText.parse) else {
                throw DecodingError.dataCorruptedError(forKey: .v, in: c, debugDescription: "not a decimal: \(text)")
            }
            stored = .decimal(value)
        case "g": stored = .uuid(try c.decode(UUID.self, forKey: .v))
        case "x": stored = .data(try c.decode(Data.self, forKey: .v))
        case "r": stored = .reference(try c.decode(ObjectID.self, forKey: .v))
        case "R": stored = .references(try c.decode([ObjectID].self, forKey: .v))
        case let tag: throw DecodingError.dataCorruptedError(forKey: .t, in: c, debugDescription: "unknown value tag \(tag)")
        }
    }
}
