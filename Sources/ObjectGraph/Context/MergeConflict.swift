import Foundation

/// A conflict found at save: an object changed or deleted elsewhere since it was read.
///
/// The values are typed (``InspectedValue``), so a page or a log formats them itself:
/// `conflict.properties[0].theirs == .string("Acme Corp")`.
public struct MergeConflict: Sendable, Hashable, CustomStringConvertible {
    /// One property changed on both sides.
    public struct PropertyConflict: Sendable, Hashable {
        public let property: String
        /// The value when this context read the object.
        public let base: InspectedValue
        /// This context's value.
        public let ours: InspectedValue
        /// The value changed elsewhere: the parent context's value in a save into a parent,
        /// the store's value in a save that reaches the store.
        public let theirs: InspectedValue

        public init(property: String, base: InspectedValue, ours: InspectedValue, theirs: InspectedValue) {
            self.property = property
            self.base = base
            self.ours = ours
            self.theirs = theirs
        }

        init(property: String, base: StoredValue, ours: StoredValue, theirs: StoredValue) {
            self.init(property: property, base: InspectedValue(base), ours: InspectedValue(ours),
                      theirs: InspectedValue(theirs))
        }
    }

    public let objectID: ObjectID
    /// Whether the row was deleted elsewhere (then `properties` is empty).
    public let deletedElsewhere: Bool
    /// The row version this context read, and the one found (0 and nil for a conflict with a
    /// parent context, which has no row versions of its own).
    public let expectedVersion: Int64
    public let foundVersion: Int64?
    /// The properties changed on both sides. Empty when the row was deleted elsewhere, and
    /// when the store's row changed only in properties this save did not change: under
    /// `.error` the store refuses a save based on an old version of the row even then.
    public let properties: [PropertyConflict]

    public init(objectID: ObjectID, deletedElsewhere: Bool, expectedVersion: Int64, foundVersion: Int64?,
                properties: [PropertyConflict]) {
        self.objectID = objectID
        self.deletedElsewhere = deletedElsewhere
        self.expectedVersion = expectedVersion
        self.foundVersion = foundVersion
        self.properties = properties
    }

    public var description: String {
        if deletedElsewhere { return "\(objectID) was deleted elsewhere" }
        let details = properties.map {
            "\($0.property): base \($0.base.quotedDescription), ours \($0.ours.quotedDescription), "
                + "theirs \($0.theirs.quotedDescription)"
        }
        let versions = foundVersion.map { " (version \(expectedVersion) → \($0))" } ?? ""
        return "\(objectID) changed elsewhere\(versions)" + (details.isEmpty ? "" : ": " + details.joined(separator: "; "))
    }
}
