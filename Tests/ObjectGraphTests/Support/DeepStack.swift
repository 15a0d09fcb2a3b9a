import Foundation
import Testing
@testable import ObjectGraph

/// A chain three levels deep: writer (root) ← main ← middle ← child. The child is the
/// context that saves through; the three above are its ancestors.
///
/// `seeded()` gives every level something of its own, so a test can check that a save
/// through leaves each ancestor's own unsaved changes alone:
/// - the store: clients Acme (Paris, with invoice A-1) and Beta;
/// - the writer: an unsaved client "Writer's own";
/// - main: Beta's city changed to "Main's city", unsaved;
/// - middle: Beta's email set, unsaved.
/// Writer and main retain what they read (as a page-serving main context would not), so
/// their copies of Acme can be checked after a conflict.
struct DeepStack {
    let url: URL
    let coordinator: PersistentStoreCoordinator
    let writer: ManagedObjectContext
    let main: ManagedObjectContext
    let middle: ManagedObjectContext
    let child: ManagedObjectContext

    init(description: PersistentStoreDescription? = nil, url: URL = TestStack.fileURL()) throws {
        self.url = url
        coordinator = PersistentStoreCoordinator(model: TestStack.model)
        try coordinator.addPersistentStore(description ?? .sqlite(at: url))
        writer = ManagedObjectContext(.privateQueue, coordinator: coordinator, name: "writer")
        main = ManagedObjectContext(.mainQueue, parent: writer, name: "main")
        middle = main.newChildContext(name: "middle")
        child = middle.newChildContext(name: "child")
        writer.retainsRegisteredObjects = true
        main.retainsRegisteredObjects = true
    }

    struct Seed: Sendable {
        let acme: ObjectID
        let beta: ObjectID
        let invoice: ObjectID
    }

    /// Writes the store's rows, then gives each ancestor its own unsaved change.
    func seed() async throws -> Seed {
        let writer = self.writer, main = self.main, middle = self.middle
        let seed = try await writer.perform { () throws -> Seed in
            let acme = Client(context: writer)
            acme.name = "Acme"
            acme.city = "Paris"
            let beta = Client(context: writer)
            beta.name = "Beta"
            let invoice = Invoice(context: writer)
            invoice.identifier = "A-1"
            invoice.amount = 100
            invoice.client = acme
            try writer.save()
            Client(context: writer).name = "Writer's own"
            return Seed(acme: acme.objectID, beta: beta.objectID, invoice: invoice.objectID)
        }
        try await main.perform {
            _ = try main.existingObject(with: seed.acme)
            try main.existingObject(with: seed.beta, as: Client.self).city = "Main's city"
        }
        try await middle.perform {
            try middle.existingObject(with: seed.beta, as: Client.self).email = "beta@example.com"
        }
        return seed
    }

    /// The child's edits: Acme renamed, a new client with an invoice.
    func childEdits(_ seed: Seed, name: String = "Acme (child)") async throws -> ObjectID {
        let child = self.child
        return try await child.perform { () throws -> ObjectID in
            try child.existingObject(with: seed.acme, as: Client.self).name = name
            let client = Client(context: child)
            client.name = "New from child"
            let invoice = Invoice(context: child)
            invoice.identifier = "N-1"
            invoice.client = client
            return client.objectID
        }
    }

    /// What a context holds, field by field: its pending changes, and the given objects as
    /// it holds them (values, committed values, row version, state).
    struct ContextState: Equatable {
        let inspection: [InspectedObject]
        let counts: [Int]
        let objects: [ObjectID: InspectedObject]
    }

    static func state(of context: ManagedObjectContext, objects ids: [ObjectID] = []) async -> ContextState {
        await context.perform {
            let inspection = context.inspect()
            return ContextState(inspection: inspection.pendingChanges,
                                counts: [inspection.insertedCount, inspection.updatedCount, inspection.deletedCount],
                                objects: context.inspectRegisteredObjects(ids))
        }
    }

    /// Every ancestor's state.
    func ancestorStates(_ ids: [ObjectID]) async -> [ContextState] {
        var states: [ContextState] = []
        for context in [writer, main, middle] { states.append(await Self.state(of: context, objects: ids)) }
        return states
    }

    /// Client names and invoice identifiers as the file holds them, read by a new coordinator.
    func storedNames() async throws -> (clients: Set<String>, invoices: Set<String>) {
        let reader = try TestStack.coordinator(at: url)
        let context = ManagedObjectContext(.privateQueue, coordinator: reader)
        return try await context.perform {
            (Set(try context.fetch(FetchRequest<Client>()).map(\.name)),
             Set(try context.fetch(FetchRequest<Invoice>()).map(\.identifier)))
        }
    }
}
