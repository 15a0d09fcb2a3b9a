import Foundation
import Synchronization
import Testing
@testable import ObjectGraph

/// `saveToStore()` and `save(into:)`: a child's changes go through every ancestor to the
/// store (or to the ancestor named) as one unit.
@Suite struct SaveThroughTests {
    @Test func aSaveThroughWritesTheChildsChangesAndLeavesEveryAncestorCleanForThem() async throws {
        let stack = try DeepStack()
        let seed = try await stack.seed()
        let newClient = try await stack.childEdits(seed)
        #expect(newClient.isTemporaryID)
        try await stack.child.perform {
            stack.child.delete(try stack.child.existingObject(with: seed.invoice))
        }
        try await stack.child.saveToStore()

        let stored = try await stack.storedNames()
        #expect(stored.clients == ["Acme (child)", "Beta", "New from child"])
        #expect(stored.invoices == ["N-1"])
        // The child: clean, its new objects permanent, the temporary ID still resolving.
        let (childClean, permanent, aliasResolves) = await stack.child.perform { () -> (Bool, ObjectID?, Bool) in
            let object = stack.child.registeredObject(for: newClient)
            return (!stack.child.hasChanges, object?.objectID, object?.isInserted == false)
        }
        #expect(childClean && aliasResolves)
        #expect(permanent?.isTemporaryID == false)
        // Each ancestor holds the saved values with nothing pending for those objects...
        for context in [stack.writer, stack.main] {
            let acme = try #require(await context.perform { context.inspectRegisteredObjects([seed.acme])[seed.acme] })
            #expect(acme.state == .unchanged)
            #expect(acme.properties.first { $0.name == "name" }?.committedValue == .string("Acme (child)"))
            #expect(acme.rowVersion == 2)
        }
        // ...and only its own unsaved changes.
        let writer = await DeepStack.state(of: stack.writer)
        #expect(writer.counts == [1, 0, 0])
        #expect(writer.inspection.first?.properties.first { $0.name == "name" }?.value == .string("Writer's own"))
        #expect(await DeepStack.state(of: stack.main).counts == [0, 1, 0])
        #expect(await DeepStack.state(of: stack.middle).counts == [0, 1, 0])
    }

    @Test func anAncestorsUnsavedInsertTheChangesReferToIsSavedWithThem() async throws {
        let stack = try DeepStack()
        let clientID = await stack.main.perform { () -> ObjectID in
            let client = Client(context: stack.main)
            client.name = "Only in main"
            return client.objectID
        }
        try await stack.child.perform {
            let invoice = Invoice(context: stack.child)
            invoice.identifier = "M-1"
            invoice.client = try stack.child.existingObject(with: clientID, as: Client.self)
        }
        try await stack.child.saveToStore()
        let stored = try await stack.storedNames()
        #expect(stored.clients == ["Only in main"] && stored.invoices == ["M-1"])
        #expect(await stack.main.perform { stack.main.hasChanges } == false)
        let permanent = await stack.main.perform { stack.main.registeredObject(for: clientID)?.objectID }
        #expect(permanent?.isTemporaryID == false)
    }

    @Test func deleteRulesCascadeThroughTheChainToTheStore() async throws {
        let stack = try DeepStack()
        let seed = try await stack.seed()
        try await stack.main.perform { _ = try stack.main.existingObject(with: seed.invoice) }
        try await stack.child.perform { stack.child.delete(try stack.child.existingObject(with: seed.acme)) }
        try await stack.child.saveToStore()
        let stored = try await stack.storedNames()
        #expect(!stored.clients.contains("Acme") && stored.invoices.isEmpty)
        let gone = await stack.main.perform {
            stack.main.registeredObject(for: seed.acme) == nil && stack.main.registeredObject(for: seed.invoice) == nil
        }
        #expect(gone)
    }

    @Test func orderedToManyChangesReachTheStoreInTheirOrder() async throws {
        let stack = try DeepStack()
        let projectID = try await stack.writer.perform { () throws -> ObjectID in
            let project = Project(context: stack.writer)
            project.title = "Launch"
            for title in ["a", "b"] {
                let task = TaskItem(context: stack.writer)
                task.title = title
                task.project = project
            }
            try stack.writer.save()
            return project.objectID
        }
        try await stack.child.perform {
            let project = try stack.child.existingObject(with: projectID, as: Project.self)
            let task = TaskItem(context: stack.child)
            task.title = "c"
            project.tasks = [task] + project.tasks.reversed()
        }
        try await stack.child.saveToStore()
        let reader = ManagedObjectContext(.privateQueue, coordinator: try TestStack.coordinator(at: stack.url))
        let titles = try await reader.perform {
            try reader.existingObject(with: projectID, as: Project.self).tasks.map(\.title)
        }
        #expect(titles == ["c", "b", "a"])
    }

    @Test func aSaveIntoAnAncestorStopsThereAsOneUnit() async throws {
        let stack = try DeepStack()
        let seed = try await stack.seed()
        _ = try await stack.childEdits(seed)
        try await stack.child.save(into: stack.writer)
        #expect(try await stack.storedNames().clients == ["Acme", "Beta"])
        #expect(await DeepStack.state(of: stack.writer).counts == [3, 1, 0])    // + the child's client and invoice
        #expect(await DeepStack.state(of: stack.main).counts == [0, 1, 0])      // Beta's city, its own
        #expect(await stack.child.perform { stack.child.hasChanges } == false)
        try await stack.writer.perform { try stack.writer.save() }
        #expect(try await stack.storedNames().clients.isSuperset(of: ["Acme (child)", "New from child", "Writer's own"]))
        await #expect(throws: ContextError.self) {
            try await stack.writer.save(into: stack.child)
        }
    }

    @Test func siblingSavesThroughAllLand() async throws {
        let stack = try Stack()
        let siblings = (0..<6).map { stack.main.newChildContext(name: "sibling \($0)") }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (n, sibling) in siblings.enumerated() {
                group.addTask {
                    await sibling.perform { Client(context: sibling).name = "Client \(n)" }
                    try await sibling.saveToStore()
                }
            }
            try await group.waitForAll()
        }
        #expect(try await stack.storeCount(Client.self) == 6)
        #expect(await stack.main.perform { stack.main.hasChanges } == false)
        #expect(await stack.writer.perform { stack.writer.hasChanges } == false)
    }

    /// Six forms save a new invoice with the same number at the same instant: one gets in,
    /// five are told the number is taken, and nothing is left behind in main or the writer.
    @Test(arguments: [true, false])
    func ofSixSiblingsSavingOneUniqueValueExactlyOneSucceeds(throughToTheStore: Bool) async throws {
        for round in 0..<(throughToTheStore ? 8 : 25) {
            let stack = try Stack()
            let clientID = try await stack.writer.perform { () throws -> ObjectID in
                let client = Client(context: stack.writer)
                client.name = "Acme"
                try stack.writer.save()
                return client.objectID
            }
            let siblings = (0..<6).map { stack.main.newChildContext(name: "form \($0)") }
            for sibling in siblings {
                try await sibling.perform {
                    let invoice = Invoice(context: sibling)
                    invoice.identifier = "INV-\(round)"
                    invoice.client = try sibling.existingObject(with: clientID, as: Client.self)
                }
            }
            let outcomes = await withTaskGroup(of: String.self) { group in
                for sibling in siblings {
                    group.addTask {
                        do {
                            if throughToTheStore { try await sibling.saveToStore() } else {
                                try await sibling.perform { try sibling.save() }
                            }
                            return "saved"
                        } catch SaveError.uniquenessViolation(let violation) {
                            return violation.properties == ["identifier"] ? "taken" : "other"
                        } catch {
                            return "\(error)"
                        }
                    }
                }
                return await group.reduce(into: [String]()) { $0.append($1) }
            }
            #expect(outcomes.sorted() == ["saved", "taken", "taken", "taken", "taken", "taken"])
            if throughToTheStore {
                #expect(try await stack.storeCount(Invoice.self) == 1)
                #expect(await stack.main.perform { stack.main.hasChanges } == false)
            } else {
                #expect(await stack.main.perform { stack.main.insertedObjects.count } == 1)
            }
        }
    }
}
