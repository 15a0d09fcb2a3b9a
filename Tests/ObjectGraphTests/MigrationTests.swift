import Foundation
import Testing
@testable import ObjectGraph

/// The store records the model's hash and schema. A later model of the same version that
/// only adds entities or optional attributes migrates the store in place; any other
/// difference is refused with `StoreError.incompatibleModel` naming each difference, and the
/// store is left untouched. The same rules on every store that outlives its coordinator
/// (SQLite files, PostgreSQL): each test runs on each.
///
/// Each version of the model is a set of classes in its own namespace: an entity is named
/// after its class alone (`V1.Client` is the entity "Client"), so versions share entity names
/// as the store sees them.
@Suite struct MigrationTests {
    // MARK: Model versions

    /// The model that writes the store.
    enum V1 {
        final class Client: ManagedObject {
            @Attribute var name: String
            @Attribute(.unique) var email: String?
            @Attribute var city: String?
            @Attribute var rating: Int = 0
            @Relationship(inverse: \Invoice.client) var invoices: Set<Invoice>
        }
        final class Invoice: ManagedObject {
            @Attribute var number: String
            @Relationship var client: Client?
        }
        final class Memo: ManagedObject {
            @Attribute var text: String
        }
        static let model = makeModel([Client.self, Invoice.self, Memo.self])
    }

    /// V1 plus an optional attribute.
    enum AddedOptionalAttribute {
        final class Client: ManagedObject {
            @Attribute var name: String
            @Attribute(.unique) var email: String?
            @Attribute var city: String?
            @Attribute var rating: Int = 0
            @Attribute var phone: String?
            @Relationship(inverse: \Invoice.client) var invoices: Set<Invoice>
        }
        final class Invoice: ManagedObject {
            @Attribute var number: String
            @Relationship var client: Client?
        }
        static let model = makeModel([Client.self, Invoice.self, V1.Memo.self])
    }

    /// V1 plus an entity.
    enum AddedEntity {
        final class Project: ManagedObject {
            @Attribute var title: String
            @Attribute var budget: Decimal?
        }
        static let model = makeModel([V1.Client.self, V1.Invoice.self, V1.Memo.self, Project.self])
    }

    enum RemovedAttribute {
        final class Client: ManagedObject {
            @Attribute var name: String
            @Attribute(.unique) var email: String?
            @Attribute var rating: Int = 0
            @Relationship(inverse: \Invoice.client) var invoices: Set<Invoice>
        }
        final class Invoice: ManagedObject {
            @Attribute var number: String
            @Relationship var client: Client?
        }
        static let model = makeModel([Client.self, Invoice.self, V1.Memo.self])
    }

    enum ChangedType {
        final class Client: ManagedObject {
            @Attribute var name: String
            @Attribute(.unique) var email: String?
            @Attribute var city: String?
            @Attribute var rating: Double = 0
            @Relationship(inverse: \Invoice.client) var invoices: Set<Invoice>
        }
        final class Invoice: ManagedObject {
            @Attribute var number: String
            @Relationship var client: Client?
        }
        static let model = makeModel([Client.self, Invoice.self, V1.Memo.self])
    }

    enum OptionalToRequired {
        final class Client: ManagedObject {
            @Attribute var name: String
            @Attribute(.unique) var email: String?
            @Attribute var city: String
            @Attribute var rating: Int = 0
            @Relationship(inverse: \Invoice.client) var invoices: Set<Invoice>
        }
        final class Invoice: ManagedObject {
            @Attribute var number: String
            @Relationship var client: Client?
        }
        static let model = makeModel([Client.self, Invoice.self, V1.Memo.self])
    }

    enum AddedRequiredAttribute {
        final class Client: ManagedObject {
            @Attribute var name: String
            @Attribute(.unique) var email: String?
            @Attribute var city: String?
            @Attribute var rating: Int = 0
            @Attribute var phone: String = ""
            @Relationship(inverse: \Invoice.client) var invoices: Set<Invoice>
        }
        final class Invoice: ManagedObject {
            @Attribute var number: String
            @Relationship var client: Client?
        }
        static let model = makeModel([Client.self, Invoice.self, V1.Memo.self])
    }

    enum RemovedEntity {
        static let model = makeModel([V1.Client.self, V1.Invoice.self])
    }

    enum ChangedRelationship {
        final class Client: ManagedObject {
            @Attribute var name: String
            @Attribute(.unique) var email: String?
            @Attribute var city: String?
            @Attribute var rating: Int = 0
            @Relationship(inverse: \Invoice.client) var invoices: [Invoice]
        }
        final class Invoice: ManagedObject {
            @Attribute var number: String
            @Relationship var client: Client?
        }
        static let model = makeModel([Client.self, Invoice.self, V1.Memo.self])
    }

    enum ChangedUniqueness {
        final class Client: ManagedObject {
            @Attribute var name: String
            @Attribute var email: String?
            @Attribute var city: String?
            @Attribute var rating: Int = 0
            @Relationship(inverse: \Invoice.client) var invoices: Set<Invoice>
        }
        final class Invoice: ManagedObject {
            @Attribute var number: String
            @Relationship var client: Client?
        }
        static let model = makeModel([Client.self, Invoice.self, V1.Memo.self])
    }

    /// Several incompatible changes at once, plus an addition that alone would migrate.
    enum SeveralDifferences {
        final class Client: ManagedObject {
            @Attribute var name: String
            @Attribute var email: String?
            @Attribute var rating: Double = 0
            @Attribute var phone: String?
            @Relationship(inverse: \Invoice.client) var invoices: Set<Invoice>
        }
        final class Invoice: ManagedObject {
            @Attribute var number: String
            @Relationship var client: Client?
        }
        static let model = makeModel([Client.self, Invoice.self])
    }

    static func makeModel(_ types: [ManagedObject.Type]) -> ManagedObjectModel {
        do {
            return try ManagedObjectModel(entities: types)
        } catch {
            fatalError("migration test model: \(error)")
        }
    }

    /// A model that differs from V1 in one way that cannot be migrated, and how the error
    /// must name it.
    enum Incompatibility: String, CaseIterable, Sendable {
        case removedAttribute, changedType, optionalToRequired, addedRequiredAttribute
        case removedEntity, changedRelationship, changedUniqueness

        var model: ManagedObjectModel {
            switch self {
            case .removedAttribute: return RemovedAttribute.model
            case .changedType: return ChangedType.model
            case .optionalToRequired: return OptionalToRequired.model
            case .addedRequiredAttribute: return AddedRequiredAttribute.model
            case .removedEntity: return RemovedEntity.model
            case .changedRelationship: return ChangedRelationship.model
            case .changedUniqueness: return ChangedUniqueness.model
            }
        }

        var expectedDifference: String {
            switch self {
            case .removedAttribute: return "attribute Client.city was removed"
            case .changedType: return "attribute Client.rating changed type from int to double"
            case .optionalToRequired: return "attribute Client.city changed from optional to required"
            case .addedRequiredAttribute: return "attribute Client.phone was added and is not optional"
            case .removedEntity: return "entity Memo was removed"
            case .changedRelationship: return "relationship Client.invoices changed from to-many to ordered to-many"
            case .changedUniqueness: return "uniqueness constraints of Client changed from [email] to none"
            }
        }
    }

    // MARK: Given

    /// A store written by V1 with a client (and its invoice) and a memo. An SQLite file is
    /// left as a crashed app (or one still running) leaves it when `leavingItsWAL`: the last
    /// transactions still in the `-wal` file, not yet checkpointed into the database (copying
    /// the files while V1's coordinator is open freezes that state); otherwise closed normally.
    static func givenAV1Store(_ store: TestStore, leavingItsWAL: Bool = false) async throws -> StoreLocation {
        guard store.kind == .sqliteFile else {
            let location = store.makeLocation()
            try await writeV1Data(with: try location.coordinator(model: V1.model))
            return location
        }
        let original = TestStack.fileURL()
        defer { StoreFileState.cleanUp(original) }
        let coordinator = PersistentStoreCoordinator(model: V1.model)
        try coordinator.addPersistentStore(.sqlite(at: original))
        try await writeV1Data(with: coordinator)
        let copy = StoreLocation(store: store, url: TestStack.fileURL())
        for suffix in ["", "-wal"] {
            try FileManager.default.copyItem(atPath: original.path + suffix, toPath: (copy.url?.path ?? "") + suffix)
        }
        let walSize = try FileManager.default.attributesOfItem(atPath: (copy.url?.path ?? "") + "-wal")[.size] as? Int ?? 0
        try #require(walSize > 0, "the WAL should hold the save's frames")
        if !leavingItsWAL { _ = try copy.coordinator(model: V1.model) }   // the last connection to close checkpoints the WAL
        return copy
    }

    private static func writeV1Data(with coordinator: PersistentStoreCoordinator) async throws {
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        try await context.perform {
            let client = V1.Client(context: context)
            client.name = "Acme"
            client.email = "billing@acme.test"
            client.city = "Lyon"
            client.rating = 3
            let invoice = V1.Invoice(context: context)
            invoice.number = "INV-1"
            invoice.client = client
            let memo = V1.Memo(context: context)
            memo.text = "call back"
            try context.save()
        }
    }

    /// The V1 client as V1 reads it.
    static func readV1Client(at location: StoreLocation) async throws -> (name: String, rating: Int, invoices: [String]) {
        let context = ManagedObjectContext(.privateQueue, coordinator: try location.coordinator(model: V1.model))
        return try await context.perform {
            let client = try #require(try context.fetch(FetchRequest<V1.Client>()).first)
            return (client.name, client.rating, client.invoices.map(\.number))
        }
    }

    // MARK: Tests

    @Test func anEntityIsNamedAfterItsClassAloneEvenWhenNested() throws {
        #expect(V1.model.entity(for: V1.Client.self)?.name == "Client")
        #expect(AddedOptionalAttribute.model.entity(for: AddedOptionalAttribute.Client.self)?.name == "Client")
        #expect(V1.model.versionHash != AddedOptionalAttribute.model.versionHash)
    }

    @Test(arguments: TestStore.shared)
    func reopeningWithAnAddedOptionalAttributeMigratesInPlace(_ store: TestStore) async throws {
        // Given a store written by V1
        let location = try await Self.givenAV1Store(store)
        defer { location.cleanUp() }
        let identifier = try location.coordinator(model: V1.model).storeIdentifier

        // When it is opened with V1 plus an optional `phone`
        let coordinator = try location.coordinator(model: AddedOptionalAttribute.model)

        // Then it is the same store; the old client reads as before, with no phone; a phone
        // can be saved and is there after reopening
        #expect(coordinator.storeIdentifier == identifier)
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        let (id, before) = try await context.perform {
            let clients = try context.fetch(FetchRequest<AddedOptionalAttribute.Client>())
            let client = try #require(clients.first)
            let values = (clients.count, client.name, client.email, client.city, client.rating,
                          client.invoices.map(\.number), client.phone)
            client.phone = "+33 4 00 00 00 00"
            try context.save()
            return (client.objectID, values)
        }
        #expect(before.0 == 1)
        #expect(before.1 == "Acme")
        #expect(before.2 == "billing@acme.test")
        #expect(before.3 == "Lyon")
        #expect(before.4 == 3)
        #expect(before.5 == ["INV-1"])
        #expect(before.6 == nil)
        let reopened = try location.coordinator(model: AddedOptionalAttribute.model)
        let check = ManagedObjectContext(.privateQueue, coordinator: reopened)
        let phone = try await check.perform { try check.existingObject(with: id, as: AddedOptionalAttribute.Client.self).phone }
        #expect(phone == "+33 4 00 00 00 00")
    }

    @Test(arguments: TestStore.shared)
    func reopeningWithAnAddedEntityMigratesInPlaceAndTheEntityIsUsable(_ store: TestStore) async throws {
        // Given a store written by V1
        let location = try await Self.givenAV1Store(store)
        defer { location.cleanUp() }

        // When it is opened with V1 plus a Project entity, and a project is saved
        let coordinator = try location.coordinator(model: AddedEntity.model)
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        let oldNames = try await context.perform {
            let project = AddedEntity.Project(context: context)
            project.title = "Website"
            project.budget = Decimal(string: "1200.50")
            try context.save()
            return try context.fetch(FetchRequest<V1.Client>()).map(\.name)
        }

        // Then the old data is there, and so is the project after reopening
        #expect(oldNames == ["Acme"])
        let reopened = try location.coordinator(model: AddedEntity.model)
        let check = ManagedObjectContext(.privateQueue, coordinator: reopened)
        let projects = try await check.perform {
            try check.fetch(FetchRequest<AddedEntity.Project>()).map { ($0.title, $0.budget) }
        }
        #expect(projects.count == 1)
        #expect(projects.first?.0 == "Website")
        #expect(projects.first?.1 == Decimal(string: "1200.50"))
    }

    @Test(arguments: TestStore.shared)
    func aMigratedStoreRecordsTheNewModel(_ store: TestStore) async throws {
        // Given a store migrated to V1 plus an optional `phone`
        let location = try await Self.givenAV1Store(store)
        defer { location.cleanUp() }
        _ = try location.coordinator(model: AddedOptionalAttribute.model)

        // When V1 opens it again
        let error = #expect(throws: StoreError.self) { _ = try location.coordinator(model: V1.model) }

        // Then V1 is now the model that lacks an attribute
        guard case .incompatibleModel(_, let differences)? = error else {
            Issue.record("expected incompatibleModel, got \(String(describing: error))")
            return
        }
        #expect(differences == ["attribute Client.phone was removed"])
    }

    @Test(arguments: TestStore.shared, Incompatibility.allCases)
    func anIncompatibleModelIsRefusedNamingTheDifferenceAndTheStoreIsLeftUntouched(
        _ store: TestStore, _ incompatibility: Incompatibility
    ) async throws {
        // Given a V1 store (a file whose last transactions are still in its WAL)
        let location = try await Self.givenAV1Store(store, leavingItsWAL: true)
        defer { location.cleanUp() }
        let before = try StoreState(of: location)

        // When a model that differs in one incompatible way opens it
        let error = #expect(throws: StoreError.self) { _ = try location.coordinator(model: incompatibility.model) }

        // Then it is refused naming that difference, the store (a database and its WAL byte
        // for byte) is as it was, and V1 still reads its data
        guard case .incompatibleModel(let path, let differences)? = error else {
            Issue.record("expected incompatibleModel, got \(String(describing: error))")
            return
        }
        if let url = location.url { #expect(path == url.path) }
        #expect(differences == [incompatibility.expectedDifference])
        #expect(error?.description.contains(incompatibility.expectedDifference) == true)
        #expect(error?.description.contains("left untouched") == true)
        #expect(error?.description.contains("Open it with the model that wrote it") == true)
        #expect(try StoreState(of: location) == before)
        let client = try await Self.readV1Client(at: location)
        #expect(client.name == "Acme")
        #expect(client.rating == 3)
        #expect(client.invoices == ["INV-1"])
    }

    @Test(arguments: TestStore.shared)
    func everyDifferenceIsNamedNotJustTheFirst(_ store: TestStore) async throws {
        // Given a store written by V1
        let location = try await Self.givenAV1Store(store, leavingItsWAL: true)
        defer { location.cleanUp() }
        let before = try StoreState(of: location)

        // When a model with several incompatible changes (and one harmless addition) opens it
        let error = #expect(throws: StoreError.self) { _ = try location.coordinator(model: SeveralDifferences.model) }

        // Then each incompatible change is listed, the addition is not, and nothing changed
        guard case .incompatibleModel(_, let differences)? = error else {
            Issue.record("expected incompatibleModel, got \(String(describing: error))")
            return
        }
        #expect(Set(differences) == [
            "entity Memo was removed",
            "attribute Client.city was removed",
            "attribute Client.rating changed type from int to double",
            "uniqueness constraints of Client changed from [email] to none",
        ])
        #expect(try StoreState(of: location) == before)
    }
}
