import Foundation
import Testing
@testable import ObjectGraph

/// Read-only introspection (ManagedObjectContext+Inspection.swift): what a tool sees of a
/// context, and that looking changes nothing.
@Suite struct InspectionTests {
    /// A stack with one saved client, "Acme" (acme@example.com).
    private func stackWithAcme() async throws -> (Stack, ObjectID) {
        let stack = try Stack()
        let id = try await stack.writer.perform { () throws -> ObjectID in
            let client = Client(context: stack.writer)
            client.name = "Acme"
            client.email = "acme@example.com"
            try stack.writer.save()
            return client.objectID
        }
        return (stack, id)
    }

    @Test func inspectListsPendingChangesWithTheirCommittedValuesAndMarksTemporaryIDs() async throws {
        let (stack, acme) = try await stackWithAcme()
        let child = stack.main.newChildContext(name: "form")
        let inspection = try await child.perform { () throws -> ContextInspection in
            let client = try child.existingObject(with: acme, as: Client.self)
            client.name = "Acme Corp"
            Client(context: child).name = "Newco"
            return child.inspect()
        }
        #expect(inspection.name == "form")
        #expect(inspection.concurrencyType == .privateQueue)
        #expect(!inspection.isRoot)
        #expect(inspection.insertedCount == 1 && inspection.updatedCount == 1 && inspection.deletedCount == 0)
        #expect(inspection.registeredObjectCount == 2)
        let inserted = try #require(inspection.pendingChanges.first { $0.state == .inserted })
        #expect(inserted.objectID.isTemporaryID)
        #expect(inserted.properties.first { $0.name == "name" }?.value == .string("Newco"))
        let updated = try #require(inspection.pendingChanges.first { $0.state == .updated })
        #expect(updated.objectID == acme)
        #expect(updated.changedProperties.map(\.name) == ["name"])
        #expect(updated.changedProperties.first?.value == .string("Acme Corp"))
        #expect(updated.changedProperties.first?.committedValue == .string("Acme"))
    }

    @Test func inspectingNeitherFiresFaultsNorChangesAnything() async throws {
        let (stack, acme) = try await stackWithAcme()
        let reader = ManagedObjectContext(.privateQueue, coordinator: stack.coordinator)
        let (state, stillFault, hasChanges) = try await reader.perform { () throws -> (InspectedObject.State?, Bool, Bool) in
            let fault = try reader.object(with: acme)             // registered, not loaded
            return withExtendedLifetime(fault) {
                let seen = reader.inspectRegisteredObjects([acme])[acme]
                _ = reader.inspect()
                return (seen?.state, fault.isFault, reader.hasChanges)
            }
        }
        #expect(state == .fault)
        #expect(stillFault)
        #expect(!hasChanges)
    }

    @Test func inspectRespectsTheLimitButCountsEverything() async throws {
        let stack = try Stack()
        let inspection = await stack.writer.perform { () -> ContextInspection in
            for n in 0..<5 { Client(context: stack.writer).name = "Client \(n)" }
            return stack.writer.inspect(pendingChangeLimit: 2)
        }
        #expect(inspection.pendingChanges.count == 2)
        #expect(inspection.insertedCount == 5)
        #expect(inspection.pendingChanges.compactMap { $0.properties.first { $0.name == "name" }?.value }
                == [.string("Client 0"), .string("Client 1")])
    }

    @Test func checkSaveReportsValidationFailuresAndSavesNothing() async throws {
        let (stack, acme) = try await stackWithAcme()
        let child = stack.main.newChildContext()
        let check = try await child.perform { () throws -> SaveCheck in
            try child.existingObject(with: acme, as: Client.self).name = "Forbidden"
            return child.checkSave()
        }
        #expect(!check.wouldSave)
        #expect(check.validationFailures.map(\.property) == ["name"])
        #expect(await stack.main.perform { stack.main.hasChanges } == false)
        #expect(await child.perform { child.hasChanges })
    }

    @Test func checkSaveFindsAPropertyTheParentChangedMeanwhileWithTheParentsValue() async throws {
        let (stack, acme) = try await stackWithAcme()
        let child = stack.main.newChildContext()
        child.automaticallyMergesChangesFromParent = false
        try await child.perform { try child.existingObject(with: acme, as: Client.self).name = "Ours" }
        try await stack.main.perform { try stack.main.existingObject(with: acme, as: Client.self).name = "Theirs" }

        let check = await child.perform { child.checkSave() }
        #expect(!check.wouldSave)
        let conflict = try #require(check.conflicts.first)
        #expect(conflict.objectID == acme)
        #expect(conflict.properties.map(\.property) == ["name"])
        #expect(check.parentValues[acme] == .some(["name": .string("Theirs")]))
        // The check agrees with a real save.
        await #expect(throws: SaveError.self) { try await child.perform { try child.save() } }

        let lenient = await child.perform { () -> Bool in
            child.mergePolicy = .mergeByPropertyObjectTrump
            return child.checkSave().wouldSave
        }
        #expect(lenient)
    }

    @Test func checkSaveGivesTheParentsUnchangedValueWhenThereIsNoConflict() async throws {
        let (stack, acme) = try await stackWithAcme()
        let child = stack.main.newChildContext()
        let check = try await child.perform { () throws -> SaveCheck in
            try child.existingObject(with: acme, as: Client.self).city = "Berlin"
            return child.checkSave()
        }
        #expect(check.wouldSave)
        #expect(check.conflicts.isEmpty)
        #expect(check.parentValues[acme] == .some(["city": .null]))
    }

    @Test func checkSaveReportsAUniquenessClashAtTheChildLikeASave() async throws {
        let (stack, _) = try await stackWithAcme()
        let child = stack.main.newChildContext()
        let check = await child.perform { () -> SaveCheck in
            let copy = Client(context: child)
            copy.name = "Copycat"
            copy.email = "acme@example.com"
            return child.checkSave()
        }
        #expect(!check.wouldSave)
        #expect(check.uniquenessViolation != nil)
    }

    @Test func objectIDsParseFromTheirURIsTemporaryOnesIncluded() async throws {
        let (stack, acme) = try await stackWithAcme()
        let temporary = await stack.main.perform { Client(context: stack.main).objectID }
        #expect(ObjectID(uriRepresentation: acme.uriRepresentation()) == acme)
        #expect(ObjectID(uriRepresentation: temporary.uriRepresentation()) == temporary)
        #expect(ObjectID(uriRepresentation: try #require(URL(string: "https://example.com/Client/p1"))) == nil)
    }
}
