import Foundation
import Testing
@testable import ObjectGraph

/// Two scratchpads edit the same client; the second save meets the first one's change.
@Suite struct ChildConflictTests {
    /// Saves "Acme" in Paris; opens two scratchpads that both read it.
    private func twoScratchpads() async throws -> (Stack, ManagedObjectContext, ManagedObjectContext, ObjectID) {
        let stack = try Stack()
        let id = try await stack.main.perform { () -> ObjectID in
            let client = Client(context: stack.main)
            client.name = "Acme"
            client.city = "Paris"
            try stack.main.save()
            return client.objectID
        }
        let first = stack.main.newChildContext(name: "first")
        let second = stack.main.newChildContext(name: "second")
        second.automaticallyMergesChangesFromParent = false     // it keeps what it read
        for context in [first, second] {
            _ = try await context.perform { try context.existingObject(with: id, as: Client.self).name }
        }
        try await first.perform {
            let client = try first.existingObject(with: id, as: Client.self)
            client.name = "Acme Corp"
            try first.save()
        }
        return (stack, first, second, id)
    }

    private func secondEdits(_ second: ManagedObjectContext, _ id: ObjectID) async throws {
        try await second.perform {
            let client = try second.existingObject(with: id, as: Client.self)
            client.name = "Acme GmbH"
            client.city = "Berlin"
        }
    }

    private func mainValues(_ stack: Stack, _ id: ObjectID) async throws -> (String, String?) {
        try await stack.main.perform {
            let client = try stack.main.existingObject(with: id, as: Client.self)
            return (client.name, client.city)
        }
    }

    @Test func theDefaultPolicyRefusesTheSaveAndNamesPropertyBaseOursAndTheirs() async throws {
        let (stack, _, second, id) = try await twoScratchpads()
        try await secondEdits(second, id)
        await second.perform {
            do {
                try second.save()
                Issue.record("expected a conflict")
            } catch let SaveError.mergeConflict(conflicts) {
                #expect(conflicts.count == 1)
                #expect(conflicts.first?.objectID == id)
                let property = conflicts.first?.properties.first
                #expect(property?.property == "name")
                #expect(property?.base == .string("Acme"))
                #expect(property?.ours == .string("Acme GmbH"))
                #expect(property?.theirs == .string("Acme Corp"))
                #expect(SaveError.mergeConflict(conflicts).code == 133020)
            } catch { Issue.record("\(error)") }
            #expect(second.hasChanges)       // kept, to be resolved
        }
        let (name, city) = try await mainValues(stack, id)
        #expect(name == "Acme Corp" && city == "Paris")    // main untouched
    }

    @Test func storeTrumpKeepsTheirPropertyAndOurOtherChanges() async throws {
        let (stack, _, second, id) = try await twoScratchpads()
        try await secondEdits(second, id)
        try await second.perform {
            second.mergePolicy = .mergeByPropertyStoreTrump
            try second.save()
            let client = try second.existingObject(with: id, as: Client.self)
            #expect(client.name == "Acme Corp")
        }
        let (name, city) = try await mainValues(stack, id)
        #expect(name == "Acme Corp" && city == "Berlin")
    }

    @Test func objectTrumpKeepsOurPropertyAndTheirOtherChanges() async throws {
        let (stack, first, second, id) = try await twoScratchpads()
        try await first.perform {
            try first.existingObject(with: id, as: Client.self).email = "first@example.com"
            try first.save()
        }
        try await second.perform {
            second.mergePolicy = .mergeByPropertyObjectTrump
            try second.existingObject(with: id, as: Client.self).name = "Acme GmbH"
            try second.save()
        }
        let values = try await stack.main.perform { () -> (String, String?) in
            let client = try stack.main.existingObject(with: id, as: Client.self)
            return (client.name, client.email)
        }
        #expect(values.0 == "Acme GmbH")
        #expect(values.1 == "first@example.com")
    }

    /// SEMANTICS.md, nested contexts: `.overwrite` into a parent writes the properties the
    /// child changed (Core Data's child save); the parent's edits of other properties stay.
    @Test func overwriteWritesThePropertiesTheChildChangedAndKeepsTheParentsOtherEdits() async throws {
        let (stack, first, second, id) = try await twoScratchpads()
        try await first.perform {
            try first.existingObject(with: id, as: Client.self).email = "first@example.com"
            try first.save()
        }
        try await second.perform {
            second.mergePolicy = .overwrite
            try second.existingObject(with: id, as: Client.self).city = "Berlin"
            try second.save()
        }
        let values = try await stack.main.perform { () -> (String, String?, String?) in
            let client = try stack.main.existingObject(with: id, as: Client.self)
            return (client.name, client.city, client.email)
        }
        #expect(values.0 == "Acme Corp")      // the parent's edit of a property we did not change stays
        #expect(values.1 == "Berlin")         // ours
        #expect(values.2 == "first@example.com")
    }

    @Test func overwriteWinsAPropertyBothChanged() async throws {
        let (stack, _, second, id) = try await twoScratchpads()
        try await second.perform {
            second.mergePolicy = .overwrite
            try second.existingObject(with: id, as: Client.self).name = "Acme GmbH"
            try second.save()
        }
        let name = try await stack.main.perform { try stack.main.existingObject(with: id, as: Client.self).name }
        #expect(name == "Acme GmbH")
    }

    @Test func rollbackDropsOurConflictingObjectButSavesTheRest() async throws {
        let (stack, _, second, id) = try await twoScratchpads()
        try await secondEdits(second, id)
        try await second.perform {
            second.mergePolicy = .rollback
            Client(context: second).name = "Unrelated new client"
            try second.save()
            let client = try second.existingObject(with: id, as: Client.self)
            #expect(client.name == "Acme Corp" && client.city == "Paris")
        }
        let (name, city) = try await mainValues(stack, id)
        #expect(name == "Acme Corp" && city == "Paris")
        let names = try await stack.main.perform { try stack.main.fetch(FetchRequest<Client>(sortBy: [SortDescriptor(\.name)])).map(\.name) }
        #expect(names == ["Acme Corp", "Unrelated new client"])
    }

    @Test func twoChildrenAddingToTheSameToManyBothLand() async throws {
        let stack = try Stack()
        let id = try await stack.main.perform { () -> ObjectID in
            let client = Client(context: stack.main)
            client.name = "Acme"
            try stack.main.save()
            return client.objectID
        }
        let a = stack.main.newChildContext(), b = stack.main.newChildContext()
        b.automaticallyMergesChangesFromParent = false
        for context in [a, b] {
            _ = try await context.perform { try context.existingObject(with: id, as: Client.self).invoices.count }
        }
        for (context, identifier) in [(a, "A-1"), (b, "B-1")] {
            try await context.perform {
                let invoice = Invoice(context: context)
                invoice.identifier = identifier
                invoice.client = try context.existingObject(with: id, as: Client.self)
                try context.save()
            }
        }
        let identifiers = try await stack.main.perform {
            try stack.main.existingObject(with: id, as: Client.self).invoices.map(\.identifier).sorted()
        }
        #expect(identifiers == ["A-1", "B-1"])
    }
}

@Suite struct HierarchyIDTests {
    @Test func temporaryIDsStayTemporaryThroughChildSaves() async throws {
        let stack = try Stack()
        let scratch = stack.main.newChildContext()
        let (held, id) = try scratch.performAndWait { () -> (Client, ObjectID) in
            let client = Client(context: scratch)
            client.name = "Acme"
            try scratch.save()
            return (client, client.objectID)
        }
        #expect(id.isTemporaryID)
        try await stack.main.perform { try stack.main.save() }
        #expect(scratch.performAndWait { held.objectID.isTemporaryID })
        let idInWriter = try await stack.writer.perform { try stack.writer.existingObject(with: id).objectID }
        #expect(idInWriter.isTemporaryID)
    }

    @Test func obtainPermanentIDsFromAGrandchildMakesOneIDForTheWholeHierarchy() async throws {
        let stack = try Stack()
        let scratch = stack.main.newChildContext()
        let permanent = try await scratch.perform { () -> ObjectID in
            let client = Client(context: scratch)
            client.name = "Acme"
            try scratch.obtainPermanentIDs(for: [client])
            try scratch.save()
            return client.objectID
        }
        #expect(!permanent.isTemporaryID)
        try await stack.main.perform { try stack.main.save() }
        try await stack.writer.perform { try stack.writer.save() }
        let reader = ManagedObjectContext(.privateQueue, coordinator: stack.coordinator)
        let stored = try await reader.perform { try reader.fetch(FetchRequest<Client>()).map(\.objectID) }
        #expect(stored == [permanent])
    }

    @Test func aSiblingsTemporaryIDIsRejectedWithoutMakingADuplicate() async throws {
        let stack = try Stack()
        let a = stack.main.newChildContext(), b = stack.main.newChildContext()
        let temporary = await a.perform { () -> ObjectID in
            let client = Client(context: a)
            client.name = "Only in A"
            return client.objectID
        }
        await b.perform {
            #expect(throws: ContextError.temporaryIDOutsideHierarchy(temporary)) { try b.object(with: temporary) }
            #expect(b.registeredObjects.isEmpty)
        }
    }
}

@Suite struct UniquenessTests {
    @Test func aChildSaveIsRefusedWhenTheStoreHasTheValue() async throws {
        let stack = try Stack()
        try await stack.writer.perform {
            let client = Client(context: stack.writer)
            client.name = "Stored"
            client.email = "taken@example.com"
            try stack.writer.save()
        }
        let scratch = stack.main.newChildContext()
        await scratch.perform {
            let client = Client(context: scratch)
            client.name = "New"
            client.email = "taken@example.com"
            do { try scratch.save(); Issue.record("expected a uniqueness violation") }
            catch let SaveError.uniquenessViolation(violation) {
                let (entity, properties) = (violation.entity, violation.properties)
                #expect(entity == "Client" && properties == ["email"])
            } catch { Issue.record("\(error)") }
        }
        #expect(await stack.main.perform { stack.main.hasChanges } == false)
    }

    @Test func aChildSaveIsRefusedWhenAnAncestorHoldsTheValueUnsaved() async throws {
        let stack = try Stack()
        await stack.main.perform {
            let client = Client(context: stack.main)
            client.name = "Pending in main"
            client.email = "pending@example.com"
        }
        let scratch = stack.main.newChildContext()
        await scratch.perform {
            let client = Client(context: scratch)
            client.name = "New"
            client.email = "pending@example.com"
            #expect(throws: SaveError.self) { try scratch.save() }
        }
    }

    @Test func freeingAValueAboveLetsTheChildTakeIt() async throws {
        let stack = try Stack()
        try await stack.writer.perform {
            let client = Client(context: stack.writer)
            client.name = "Stored"
            client.email = "moving@example.com"
            try stack.writer.save()
        }
        try await stack.main.perform {
            try stack.main.fetch(FetchRequest<Client>()).first?.email = "moved@example.com"
        }
        let scratch = stack.main.newChildContext()
        try await scratch.perform {
            let client = Client(context: scratch)
            client.name = "New"
            client.email = "moving@example.com"
            try scratch.save()
        }
    }

    @Test func objectTrumpAtTheRootIsAnUpsert() async throws {
        let coordinator = try TestStack.coordinator()
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        let existing = try await context.perform { () -> ObjectID in
            let client = Client(context: context)
            client.name = "Old name"
            client.email = "upsert@example.com"
            try context.save()
            return client.objectID
        }
        let other = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        let upserted = try await other.perform { () -> ObjectID in
            other.mergePolicy = .mergeByPropertyObjectTrump
            let client = Client(context: other)
            client.name = "New name"
            client.email = "upsert@example.com"
            try other.save()
            return client.objectID
        }
        #expect(upserted == existing)
        let reader = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        let names = try await reader.perform { try reader.fetch(FetchRequest<Client>()).map(\.name) }
        #expect(names == ["New name"])
    }
}
