import Foundation
import Testing
@testable import ObjectGraph

@Suite struct ModelTests {
    @Test func entitiesAreDerivedFromClassDeclarations() throws {
        let model = TestStack.model
        let client = try #require(model.entity(named: "Client"))
        #expect(client.objectType == Client.self)
        #expect(client.properties.map(\.name) == ["name", "email", "city", "createdAt", "isActive", "invoices", "tags"])
        let email = try #require(client.attribute(named: "email"))
        #expect(email.type == .string)
        #expect(email.isOptional)
        #expect(email.isUnique)
        let name = try #require(client.attribute(named: "name"))
        #expect(!name.isOptional)
        #expect(name.constraints == [.required, .maxLength(120)])
    }

    @Test func everyAttributeTypeMapsToItsKind() throws {
        let invoice = try #require(TestStack.model.entity(named: "Invoice"))
        let types = Dictionary(uniqueKeysWithValues: invoice.attributes.map { ($0.name, $0.type) })
        #expect(types["identifier"] == .string)
        #expect(types["amount"] == .decimal)
        #expect(types["status"] == .string)   // a raw-value enum is stored as its raw value
        #expect(types["issueDate"] == .date)
        #expect(types["reference"] == .uuid)
        #expect(types["attachment"] == .data)
        #expect(types["quantity"] == .int)
        #expect(types["weight"] == .double)
        #expect(types["sequence"] == .int64)
        #expect(TestStack.model.entity(named: "Client")?.attribute(named: "isActive")?.type == .bool)
    }

    @Test func relationshipsArePairedWithTheirInverseFromOneSide() throws {
        let model = TestStack.model
        let invoices = try #require(model.entity(named: "Client")?.relationship(named: "invoices"))
        #expect(invoices.cardinality == .toMany)
        #expect(invoices.inverseName == "client")
        #expect(invoices.deleteRule == .cascade)
        let client = try #require(model.entity(named: "Invoice")?.relationship(named: "client"))
        #expect(client.cardinality == .toOne)
        #expect(client.inverseName == "invoices")
        #expect(client.isRequired)
        #expect(model.entity(named: "Project")?.relationship(named: "tasks")?.cardinality == .orderedToMany)
        #expect(model.entity(named: "Tag")?.relationship(named: "clients")?.inverseName == "tags")
    }

    @Test func uniquenessConstraintsComeFromAttributesAndTheClass() throws {
        #expect(TestStack.model.entity(named: "Client")?.uniquenessConstraints == [["email"]])
        #expect(TestStack.model.entity(named: "Invoice")?.uniquenessConstraints == [["identifier"]])
    }

    @Test func theVersionHashIsStableAndChangesWithTheSchema() throws {
        let again = try ManagedObjectModel(entities: [Client.self, Invoice.self, Tag.self, Project.self, TaskItem.self,
                                                      Team.self, Member.self])
        #expect(again.versionHash == TestStack.model.versionHash)
        let smaller = try ManagedObjectModel(entities: [Project.self, TaskItem.self])
        #expect(smaller.versionHash != TestStack.model.versionHash)
    }

    @Test func aRelationshipToAClassOutsideTheModelIsAnError() {
        #expect(throws: ModelError.unknownDestination(entity: "Invoice", relationship: "client", destination: "Client")) {
            try ManagedObjectModel(entities: [Invoice.self])
        }
    }

    @Test func aRelationshipWithoutInverseIsAnError() {
        #expect(throws: ModelError.missingInverse(entity: "Loner", relationship: "friend")) {
            try ManagedObjectModel(entities: [Loner.self])
        }
    }

    @Test func listingAnEntityTwiceIsAnError() {
        #expect(throws: ModelError.duplicateEntity("Tag")) {
            try ManagedObjectModel(entities: [Tag.self, Client.self, Invoice.self, Tag.self])
        }
    }
}

final class Loner: ManagedObject {
    @Attribute var name: String
    @Relationship var friend: Loner?
}

@Suite struct DynamicAccessTests {
    @Test func valuesCanBeReadAndWrittenByName() async throws {
        let context = ManagedObjectContext(.privateQueue, coordinator: try TestStack.inMemoryCoordinator())
        try await context.perform {
            let client = Client(context: context)
            try client.setValue("Acme", forKey: "name")
            try client.setValue("acme@example.com", forKey: "email")
            #expect(client.name == "Acme")
            #expect(try client.value(forKey: "email") as? String == "acme@example.com")
            let invoice = Invoice(context: context)
            try invoice.setValue(client, forKey: "client")
            #expect((try client.value(forKey: "invoices") as? [ManagedObject])?.count == 1)
            try invoice.setValue(5, forKey: "amount")       // an Int converts exactly to Decimal
            #expect(invoice.amount == 5)
            try client.setValue(nil, forKey: "email")
            #expect(client.email == nil)
        }
    }

    @Test func anUnknownKeyIsAThrownError() async throws {
        let context = ManagedObjectContext(.privateQueue, coordinator: try TestStack.inMemoryCoordinator())
        await context.perform {
            let client = Client(context: context)
            #expect(throws: PropertyAccessError.unknownKey(entity: "Client", key: "nmae")) {
                try client.value(forKey: "nmae")
            }
            #expect(throws: PropertyAccessError.unknownKey(entity: "Client", key: "x")) {
                try client.setValue(1, forKey: "x")
            }
        }
    }

    @Test func aValueOfTheWrongTypeIsAThrownErrorAndChangesNothing() async throws {
        let context = ManagedObjectContext(.privateQueue, coordinator: try TestStack.inMemoryCoordinator())
        await context.perform {
            let client = Client(context: context)
            client.name = "Acme"
            #expect(throws: PropertyAccessError.self) { try client.setValue(42, forKey: "name") }
            #expect(throws: PropertyAccessError.self) { try client.setValue(nil, forKey: "name") }
            #expect(throws: PropertyAccessError.self) { try client.setValue("x", forKey: "invoices") }
            #expect(client.name == "Acme")
        }
    }

    @Test func theEntityDescribesItsPropertiesForTools() throws {
        let entity = try #require(TestStack.model.entity(named: "Invoice"))
        let names = entity.properties.map(\.name)
        #expect(names.contains("amount") && names.contains("client"))
        #expect(entity.relationship(named: "client")?.destinationEntityName == "Client")
    }
}

@Suite struct IndexTests {
    private func indexNames(_ path: String) throws -> Set<String> {
        let db = try SQLiteConnection(path: path, readOnly: true, create: false, busyTimeout: 1)
        let statement = try db.statement("SELECT name FROM sqlite_master WHERE type = 'index'")
        var names = Set<String>()
        while try statement.step() { if let n = statement.string(at: 0) { names.insert(n) } }
        return names
    }

    @Test func anIndexedAttributeGetsAnIndexWithoutChangingTheModelHash() throws {
        let url = TestStack.fileURL()
        _ = try TestStack.coordinator(at: url)
        #expect(try indexNames(url.path).contains("Client_city_index"))
        #expect(TestStack.model.entity(named: "Client")?.attribute(named: "city")?.isIndexed == true)
        // Reopening an up-to-date store writes nothing.
        let before = try Data(contentsOf: url)
        _ = try TestStack.coordinator(at: url)
        #expect(try Data(contentsOf: url) == before)
    }
}
