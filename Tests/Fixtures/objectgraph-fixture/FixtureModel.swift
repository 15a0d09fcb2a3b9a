import ObjectGraph

/// The fixture's model: one entity, enough for the programs the tests run.
final class Client: ManagedObject {
    @Attribute var name: String
}

enum FixtureModel {
    static func make() -> ManagedObjectModel {
        do {
            return try ManagedObjectModel(entities: [Client.self])
        } catch {
            fatalError("fixture model: \(error)")
        }
    }
}
