import Foundation
import Testing
@testable import ObjectGraph

@Suite struct RelationshipTests {
    @Test(arguments: TestStore.all) func settingAToOneUpdatesBothOldAndNewInverseAtOnce(_ store: TestStore) async throws {
        let context = ManagedObjectContext(.privateQueue, coordinator: try store.coordinator())
        await context.perform {
            let acme = Client(context: context)
            let globex = Client(context: context)
            let invoice = Invoice(context: context)
            invoice.client = acme
            #expect(acme.invoices == [invoice])
            invoice.client = globex
            #expect(acme.invoices.isEmpty)
            #expect(globex.invoices == [invoice])
            invoice.client = nil
            #expect(globex.invoices.isEmpty)
        }
    }

    @Test(arguments: TestStore.all) func keepingAnUnloadedInverseInStepReadsKeysNotRows(_ store: TestStore) async throws {
        let coordinator = try store.coordinator()
        let writer = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        let clientID = try await writer.perform {
            let client = Client(context: writer)
            client.name = "Acme"
            for n in 0..<50 {
                let invoice = Invoice(context: writer)
                invoice.identifier = "A-\(n)"
                invoice.client = client
            }
            try writer.save()
            return client.objectID
        }
        let importer = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        try await importer.perform {
            let client = try importer.existingObject(with: clientID, as: Client.self)
            let cachedBefore = coordinator.rowCacheCount
            let invoice = Invoice(context: importer)
            invoice.identifier = "A-new"
            invoice.client = client
            // The 50 invoices already there are named by key in the inverse, not read.
            #expect(coordinator.rowCacheCount == cachedBefore)
            #expect(client.invoices.count == 51)
            #expect(client.invoices.contains(invoice))
            try importer.save()
        }
        let reader = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        let count = try await reader.perform {
            try reader.existingObject(with: clientID, as: Client.self).invoices.count
        }
        #expect(count == 51)
    }

    @Test(arguments: TestStore.all) func changingAToManySetsTheInverseOfAddedAndRemovedObjects(_ store: TestStore) async throws {
        let context = ManagedObjectContext(.privateQueue, coordinator: try store.coordinator())
        await context.perform {
            let acme = Client(context: context)
            let globex = Client(context: context)
            let first = Invoice(context: context)
            let second = Invoice(context: context)
            acme.invoices = [first, second]
            #expect(first.client === acme && second.client === acme)
            globex.invoices.insert(second)
            #expect(second.client === globex)
            #expect(acme.invoices == [first])
            acme.invoices = []
            #expect(first.client == nil)
        }
    }

    @Test(arguments: TestStore.all) func manyToManyLinksArePersistedFromEitherSide(_ store: TestStore) async throws {
        let coordinator = try store.coordinator()
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        let ids = try await context.perform {
            let client = Client(context: context)
            client.name = "Acme"
            let vip = Tag(context: context)
            vip.label = "vip"
            let late = Tag(context: context)
            late.label = "late payer"
            client.tags = [vip]
            late.clients.insert(client)
            #expect(client.tags == [vip, late])
            try context.save()
            return (client.objectID, vip.objectID)
        }
        let reader = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        try await reader.perform {
            let client = try reader.existingObject(with: ids.0, as: Client.self)
            #expect(Set(client.tags.map(\.label)) == ["vip", "late payer"])
            let vip = try reader.existingObject(with: ids.1, as: Tag.self)
            vip.clients = []
            try reader.save()
        }
        let third = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        try await third.perform {
            let client = try third.existingObject(with: ids.0, as: Client.self)
            #expect(client.tags.map(\.label) == ["late payer"])
        }
    }

    @Test(arguments: TestStore.all) func anOrderedToManyKeepsItsOrderInTheStore(_ store: TestStore) async throws {
        let coordinator = try store.coordinator()
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        let id = try await context.perform {
            let project = Project(context: context)
            project.title = "Launch"
            let titles = ["write", "test", "ship"]
            let tasks = titles.map { title -> TaskItem in
                let task = TaskItem(context: context)
                task.title = title
                return task
            }
            project.tasks = [tasks[2], tasks[0], tasks[1]]
            try context.save()
            return project.objectID
        }
        let reader = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        try await reader.perform {
            let project = try reader.existingObject(with: id, as: Project.self)
            #expect(project.tasks.map(\.title) == ["ship", "write", "test"])
            #expect(project.tasks.allSatisfy { $0.project === project })
        }
    }

    @Test(arguments: TestStore.all) func cascadeDeletesTheDestinationsAtTheEndOfTheBlock(_ store: TestStore) async throws {
        let coordinator = try store.coordinator()
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        try await context.perform {
            let client = Client(context: context)
            client.name = "Acme"
            for n in 0..<3 {
                let invoice = Invoice(context: context)
                invoice.identifier = "INV-\(n)"
                invoice.client = client
            }
            try context.save()
            context.delete(client)
            context.processPendingChanges()
            #expect(context.deletedObjects.count == 4)
            try context.save()
            #expect(try context.count(for: FetchRequest<Invoice>()) == 0)
        }
    }

    @Test(arguments: TestStore.all) func nullifyRemovesTheDeletedObjectFromTheInverse(_ store: TestStore) async throws {
        let context = ManagedObjectContext(.privateQueue, coordinator: try store.coordinator())
        try await context.perform {
            let client = Client(context: context)
            client.name = "Acme"
            let tag = Tag(context: context)
            tag.label = "vip"
            client.tags = [tag]
            try context.save()
            context.delete(tag)
            context.processPendingChanges()
            #expect(client.tags.isEmpty)
            #expect(client.isUpdated)
            try context.save()
        }
    }

    @Test(arguments: TestStore.all) func denyRefusesTheSaveWhileDestinationsRemain(_ store: TestStore) async throws {
        let context = ManagedObjectContext(.privateQueue, coordinator: try store.coordinator())
        try await context.perform {
            let parent = TaskItem(context: context)
            parent.title = "parent"
            let child = TaskItem(context: context)
            child.title = "child"
            child.parentTask = parent
            try context.save()
            context.delete(parent)
            do {
                try context.save()
                Issue.record("the save should have failed")
            } catch SaveError.validationFailed(let failures) {
                #expect(failures.map(\.code) == [.relationshipDeniedDelete])
                #expect(failures.first?.property == "subtasks")
            }
            // Deleting the child first lets the parent go.
            context.delete(child)
            try context.save()
            #expect(try context.count(for: FetchRequest<TaskItem>()) == 0)
        }
    }

    @Test(arguments: TestStore.all) func relationshipsLoadFromTheStoreInOneQueryPerRelationship(_ store: TestStore) async throws {
        let coordinator = try store.coordinator()
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        let id = try await context.perform {
            let client = Client(context: context)
            client.name = "Acme"
            for n in 0..<20 {
                let invoice = Invoice(context: context)
                invoice.identifier = "INV-\(n)"
                invoice.client = client
            }
            try context.save()
            return client.objectID
        }
        let reader = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        try await reader.perform {
            let client = try reader.existingObject(with: id, as: Client.self)
            let before = coordinator.storeReadQueryCount
            let total = client.invoices.reduce(0) { $0 + $1.identifier.count }
            #expect(total > 0)
            #expect(coordinator.storeReadQueryCount - before == 1)
        }
    }
}
