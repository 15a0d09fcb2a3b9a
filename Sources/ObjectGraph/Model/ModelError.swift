/// Why a model could not be built from its classes.
public enum ModelError: Error, CustomStringConvertible, Sendable, Equatable {
    case duplicateEntity(String)
    case unsupportedDeclaration(entity: String, reason: String)
    case unknownDestination(entity: String, relationship: String, destination: String)
    case missingInverse(entity: String, relationship: String)
    case inconsistentInverse(entity: String, relationship: String, reason: String)
    case unresolvableKeyPath(entity: String, keyPath: String)
    case unknownEntity(String)
    case invalidVersion(Int)

    public var description: String {
        switch self {
        case .duplicateEntity(let name):
            return "The model lists the entity \(name) twice; list each class once."
        case .unsupportedDeclaration(let entity, let reason):
            return "\(entity) cannot be an entity: \(reason)."
        case .unknownDestination(let entity, let rel, let dest):
            return "\(entity).\(rel) points to \(dest), which is not in the model; add \(dest).self to the entities."
        case .missingInverse(let entity, let rel):
            return "\(entity).\(rel) has no inverse; name it with @Relationship(inverse: \\Destination.property) on one side."
        case .inconsistentInverse(let entity, let rel, let reason):
            return "The inverse of \(entity).\(rel) is inconsistent: \(reason)."
        case .unresolvableKeyPath(let entity, let keyPath):
            return "The key path \(keyPath) on \(entity) does not name @Attribute or @Relationship properties."
        case .unknownEntity(let name):
            return "\(name) is not an entity of this model; add it to ManagedObjectModel(entities:)."
        case .invalidVersion(let version):
            return "A model's version is 1 or more, not \(version)."
        }
    }
}
