import Foundation
import Testing
@testable import ObjectGraph

/// A context's working state archived in one coordinator and adopted in another (a web form
/// continued on another server): the typed values, new objects with their temporary IDs, and
/// the bases read, so a save still meets what changed since as a conflict.
@Suite struct UnsavedChangesArchiveTests {
    /// Acme and Beta saved; returns their IDs.
    private static func seed(_ coordinator: PersistentStoreCoordinator) async throws -> (acme: ObjectID, beta: ObjectID) {
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        return try await context.perform {
            let acme = Client(context: context), beta = Client(context: context)
            acme.name = "Acme"
            beta.name = "Beta"
            try context.save()
            return (acme.objectID, beta.objectID)
        }
    }

    private static func rename(_ id: ObjectID, to name: String, in coordinator: PersistentStoreCoordinator) async throws {
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        try await context.perform {
            try context.existingObject(with: id, as: Client.self).name = name
            try context.save()
        }
    }

    /// What a form on the first server holds: Acme renamed, Beta only read, an invoice added
    /// for a new client; archived.
    private static func workingState(on coordinator: PersistentStoreCoordinator, acme: ObjectID,
                                     beta: ObjectID) async throws -> Data {
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        return try await context.perform {
            try context.existingObject(with: acme, as: Client.self).name = "Acme (mine)"
            _ = try context.existingObject(with: beta)
            let client = Client(context: context)
            client.name = "Gamma"
            let invoice = Invoice(context: context)
            invoice.identifier = "G-1"
            invoice.amount = Decimal(string: "12.345")!
            invoice.client = client
            return try context.workingState(including: [acme, beta]).archived()
        }
    }

    @Test(arguments: TestStore.shared) func adoptedElsewhereTheStateSavesWithItsNewObjects(_ store: TestStore) async throws {
        let location = store.makeLocation()
        let first = try location.coordinator(), second = try location.coordinator()
        let (acme, beta) = try await Self.seed(first)
        let archive = try await Self.workingState(on: first, acme: acme, beta: beta)

        let changes = try UnsavedChanges(archived: archive, model: second.model)
        let context = ManagedObjectContext(.privateQueue, coordinator: second)
        let names = try await context.perform { () throws -> [String] in
            try context.adopt(changes)
            #expect(context.updatedObjects.count == 1)   // Beta, only read, is no change
            try context.save()
            return try context.fetch(FetchRequest<Client>(sortBy: [SortDescriptor(\.name)])).map(\.name)
        }
        #expect(names == ["Acme (mine)", "Beta", "Gamma"])
        let check = ManagedObjectContext(.privateQueue, coordinator: try location.coordinator())
        let amount = try await check.perform {
            try check.fetch(FetchRequest<Invoice>()).first.map { ($0.amount, $0.client?.name) }
        }
        #expect(amount?.0 == Decimal(string: "12.345"))
        #expect(amount?.1 == "Gamma")
    }

    @Test(arguments: TestStore.shared) func aBaseReadBeforeAnotherSaveIsStillTheBaseAfterAdopting(_ store: TestStore) async throws {
        let location = store.makeLocation()
        let first = try location.coordinator(), second = try location.coordinator()
        let (acme, beta) = try await Self.seed(first)
        let archive = try await Self.workingState(on: first, acme: acme, beta: beta)
        // Someone else renames both after the form read them.
        try await Self.rename(acme, to: "Acme (theirs)", in: second)
        try await Self.rename(beta, to: "Beta (theirs)", in: second)

        let changes = try UnsavedChanges(archived: archive, model: second.model)
        let context = ManagedObjectContext(.privateQueue, coordinator: try location.coordinator())
        let conflicts = await context.perform { () -> [MergeConflict] in
            do {
                try context.adopt(changes)
                // Beta was only read: changing it now still compares with what was read then.
                try context.existingObject(with: beta, as: Client.self).name = "Beta (mine)"
                try context.save()
                return []
            } catch SaveError.mergeConflict(let conflicts) {
                return conflicts
            } catch {
                Issue.record("unexpected \(error)")
                return []
            }
        }
        #expect(Set(conflicts.map(\.objectID)) == [acme, beta])
        let theirs = conflicts.flatMap(\.properties).map { text(of: $0.theirs) }
        #expect(Set(theirs) == ["Acme (theirs)", "Beta (theirs)"])
    }

    @Test func anArchiveOfAnotherModelIsRefusedByName() throws {
        let data = Data(#"[{"id":"x-objectgraph:///Planet/t6F9619FF-8B86-D011-B42D-00CF4FC964FF","entity":"Planet","kind":"inserted","properties":["name"],"values":[],"base":[],"version":0}]"#.utf8)
        #expect(throws: UnsavedChangesArchiveError.modelMismatch(entity: "Planet")) {
            _ = try UnsavedChanges(archived: data, model: TestStack.model)
        }
        #expect(throws: UnsavedChangesArchiveError.self) {
            _ = try UnsavedChanges(archived: Data("not json".utf8), model: TestStack.model)
        }
    }
}

/// A conflict's value as text, for comparing.
private func text(of value: InspectedValue) -> String {
    if case .string(let text) = value { return text }
    return value.description
}
