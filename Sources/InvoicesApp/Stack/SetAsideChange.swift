import Foundation
import ObjectGraph

/// An acknowledged change that the writer could not write to the file (deferred
/// persistence): set aside so that everything else could be written, and kept until someone
/// resolves or discards it. The inspector, the object's page, the server log and the stop
/// message show it.
public struct SetAsideChange: Sendable, Identifiable {
    /// Why the file refused it.
    public enum Reason: Sendable {
        /// The object was changed in the file (another server or process) since it was read.
        case conflict(MergeConflict)
        /// Another object in the file already has its unique value.
        case duplicate(UniquenessViolation)
    }

    /// One changed property: what the change was made from, what it wanted, and, for a
    /// property changed in the file too, what the file holds.
    public struct Property: Sendable {
        public let name: String
        public let base: InspectedValue
        public let yours: InspectedValue
        public let theirs: InspectedValue?
    }

    /// Random: names it in URLs.
    public let id: String
    public let objectID: ObjectID
    public let kind: UnsavedChanges.Change.Kind
    public let reason: Reason
    /// The change itself, to adopt in a scratchpad when the user resolves it.
    public let changes: UnsavedChanges
    public let setAsideAt: Date

    init(id: String, change: UnsavedChanges.Change, reason: Reason, at date: Date = Date()) {
        self.id = id
        self.objectID = change.objectID
        self.kind = change.kind
        self.reason = reason
        self.changes = UnsavedChanges([change])
        self.setAsideAt = date
    }

    public var entity: String { objectID.entityName }
    public var primaryKey: Int64? { objectID.primaryKey }

    /// The properties the change set, each with the file's value where it changed there too.
    public var properties: [Property] {
        guard let change = changes.changes.first else { return [] }
        var theirs: [String: InspectedValue] = [:]
        if case .conflict(let conflict) = reason {
            for property in conflict.properties { theirs[property.property] = property.theirs }
        }
        return change.changedProperties
            .filter { !($0.isRelationship && $0.value == .references([])) }
            .map { Property(name: $0.name, base: $0.committedValue, yours: $0.value, theirs: theirs[$0.name]) }
    }

    /// One line for the log and the stop message: `Client/p12 (update): name "Acme" → "Acme AG"`.
    public var summary: String {
        let what: String
        switch reason {
        case .conflict(let conflict) where conflict.deletedElsewhere: what = "deleted in the file meanwhile"
        case .conflict: what = "changed in the file meanwhile"
        case .duplicate(let violation): what = violation.description
        }
        let changes = properties.filter { !$0.yours.isReferenceList }.map { property in
            "\(property.name) \(property.base.quotedDescription) → \(property.yours.quotedDescription)"
                + (property.theirs.map { " (file: \($0.quotedDescription))" } ?? "")
        }
        return "\(objectID) (\(kind.rawValue)): \(what)" + (changes.isEmpty ? "" : "; " + changes.joined(separator: ", "))
    }
}

extension InspectedValue {
    /// A to-many relationship's value.
    var isReferenceList: Bool {
        if case .references = self { return true }
        return false
    }
}
