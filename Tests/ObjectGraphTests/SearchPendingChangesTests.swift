import Foundation
import Testing
@testable import ObjectGraph

/// A search sees a context's unsaved changes, and its ancestors': unsaved objects are matched
/// in memory by the index's rules and merged with what the store finds.
@Suite struct SearchPendingChangesTests {
    @Test(arguments: TestStore.all) func anUnsavedInsertThatMatchesIsFoundFirstEvenWithALimit(_ store: TestStore) async throws {
        // Given stored invoices, and an unsaved one that matches
        let context = try await SearchFetchTests.seeded(store)
        await context.perform {
            let invoice = Indexed.Invoice(context: context)
            invoice.identifier = "NEW-1"
            invoice.notes = "ACME Widgets, typed just now"
        }

        // When searching, one result per page
        let first = try await SearchStack.identifiers(context, "acme widg*") { $0.fetchLimit = 1 }
        let all = try await SearchStack.identifiers(context, "acme widg*")
        let count = try await context.perform {
            var request = FetchRequest<Indexed.Invoice>()
            request.searchQuery = SearchQuery("acme widg*")
            return try context.count(for: request)
        }

        // Then the unsaved invoice (no rank yet) comes before the stored matches
        #expect(first == ["NEW-1"])
        #expect(all.first == "NEW-1")
        #expect(Set(all) == ["NEW-1", "INV-2024-0003", "INV-2024-0005"])
        #expect(count == 3)
        #expect(try await SearchStack.identifiers(context, "acme zeppelin").isEmpty)
    }

    @Test(arguments: TestStore.all) func anUnsavedUpdateIsMatchedByItsNewWordsOnly(_ store: TestStore) async throws {
        // Given a stored invoice whose notes are changed but not saved
        let context = try await SearchFetchTests.seeded(store)
        try await context.perform {
            let request = FetchRequest<Indexed.Invoice>(predicate: #Predicate { $0.identifier == "INV-2024-0006" })
            try context.fetch(request).first?.notes = "Zeppelin spare parts, Ångström units"
        }

        // Then its new words find it, its old ones do not, by the index's folding rules
        #expect(try await SearchStack.identifiers(context, "zeppelin") == ["INV-2024-0006"])
        #expect(try await SearchStack.identifiers(context, "angstrom spare") == ["INV-2024-0006"])
        #expect(try await SearchStack.identifiers(context, "gizmos").isEmpty)
        #expect(try await SearchStack.identifiers(context, "spa* part").isEmpty)      // not a prefix: "part" is whole
        #expect(try await SearchStack.identifiers(context, "parts spare") == ["INV-2024-0006"])
        #expect(try await SearchStack.identifiers(context, "\"spare-parts\"") == ["INV-2024-0006"])
        #expect(try await SearchStack.identifiers(context, "parts-spare").isEmpty)    // a phrase keeps its order
    }

    @Test(arguments: TestStore.all) func anUnsavedDeleteIsNotFound(_ store: TestStore) async throws {
        let context = try await SearchFetchTests.seeded(store)
        try await context.perform {
            let request = FetchRequest<Indexed.Invoice>(predicate: #Predicate { $0.identifier == "INV-2024-0005" })
            for invoice in try context.fetch(request) { context.delete(invoice) }
        }
        #expect(try await SearchStack.identifiers(context, "resold").isEmpty)
        #expect(!(try await SearchStack.identifiers(context, "acme").contains("INV-2024-0005")))
    }

    @Test(arguments: TestStore.all) func anUnsavedChangeToOtherAttributesKeepsTheStoredRank(_ store: TestStore) async throws {
        // Given the stored order of a search
        let context = try await SearchFetchTests.seeded(store)
        let stored = try await SearchStack.identifiers(context, "acme")

        // When the last result's status changes, unsaved (the fetch then runs in memory)
        try await context.perform {
            let request = FetchRequest<Indexed.Invoice>(predicate: #Predicate { $0.identifier == "INV-2024-0001" })
            try context.fetch(request).first?.status = .paid
        }

        // Then the order is the same: its text did not change, so its rank still counts
        #expect(try await SearchStack.identifiers(context, "acme") == stored)
        #expect(stored.last == "INV-2024-0001")
    }

    @Test(arguments: TestStore.all) func aChildContextSeesItsAncestorsUnsavedObjectsAndSiblingsSeeNothingOfEachOther(_ store: TestStore) async throws {
        // Given a main context with an unsaved invoice, and two children of it, one with its own
        let writer = try await SearchFetchTests.seeded(store)
        let main = ManagedObjectContext(.mainQueue, parent: writer, name: "main")
        let child = main.newChildContext(name: "child")
        let sibling = main.newChildContext(name: "sibling")
        await main.perform {
            let invoice = Indexed.Invoice(context: main)
            invoice.identifier = "MAIN-1"
            invoice.notes = "quartz clock"
        }
        await child.perform {
            let invoice = Indexed.Invoice(context: child)
            invoice.identifier = "CHILD-1"
            invoice.notes = "quartz watch"
        }

        // Then each sees the words of what it and its ancestors hold
        #expect(try await SearchStack.identifiers(child, "quartz").sorted() == ["CHILD-1", "MAIN-1"])
        #expect(try await SearchStack.identifiers(sibling, "quartz") == ["MAIN-1"])
        #expect(try await SearchStack.identifiers(main, "quartz") == ["MAIN-1"])
        #expect(try await SearchStack.identifiers(writer, "quartz").isEmpty)
        #expect(try await SearchStack.identifiers(child, "quartz") { $0.includesPendingChanges = false } == ["MAIN-1"])
    }

    @Test(arguments: TestStore.all) func unsavedObjectsMustMatchThePredicateToo(_ store: TestStore) async throws {
        let context = try await SearchFetchTests.seeded(store)
        await context.perform {
            for (identifier, status) in [("P-1", InvoiceStatus.sent), ("P-2", .draft)] {
                let invoice = Indexed.Invoice(context: context)
                invoice.identifier = identifier
                invoice.notes = "pending acme work"
                invoice.status = status
            }
        }
        let status = InvoiceStatus.sent
        let sent = #Predicate<Indexed.Invoice> { $0.status == status }
        let found = try await SearchStack.identifiers(context, "acme", predicate: sent)
        #expect(found.first == "P-1")
        #expect(!found.contains("P-2"))
        #expect(found.count == 5)
    }
}
