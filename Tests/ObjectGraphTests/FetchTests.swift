import Foundation
import Testing
@testable import ObjectGraph

@Suite struct FetchTests {
    /// Three clients with invoices of known amounts and statuses, saved.
    private func seeded(_ store: TestStore) async throws -> PersistentStoreCoordinator {
        let coordinator = try store.coordinator()
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        try await context.perform {
            let rows: [(String, String?, [(String, Decimal, InvoiceStatus)])] = [
                ("Acme", "Paris", [("A-1", 100, .sent), ("A-2", 250.5, .paid), ("A-3", 10, .draft)]),
                ("Globex", "Berlin", [("G-1", 999.99, .sent)]),
                ("Initech", nil, []),
            ]
            for (name, city, invoices) in rows {
                let client = Client(context: context)
                client.name = name
                client.city = city
                for (identifier, amount, status) in invoices {
                    let invoice = Invoice(context: context)
                    invoice.identifier = identifier
                    invoice.amount = amount
                    invoice.status = status
                    invoice.client = client
                }
            }
            try context.save()
        }
        return coordinator
    }

    @Test(arguments: TestStore.all) func aPredicateOnAttributesIsRunByTheStore(_ store: TestStore) async throws {
        let coordinator = try await seeded(store)
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        let identifiers = try await context.perform {
            let request = FetchRequest<Invoice>(
                predicate: #Predicate { $0.amount > 50 && $0.identifier.starts(with: "A") },
                sortBy: [SortDescriptor(\.amount, order: .reverse)])
            return try context.fetch(request).map(\.identifier)
        }
        #expect(identifiers == ["A-2", "A-1"])
    }

    @Test(arguments: TestStore.all) func predicatesFollowToOneRelationshipsAndCountToMany(_ store: TestStore) async throws {
        let coordinator = try await seeded(store)
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        try await context.perform {
            let paris = try context.fetch(FetchRequest<Invoice>(
                predicate: #Predicate { $0.client?.city == "Paris" }, sortBy: [SortDescriptor(\.identifier)]))
            #expect(paris.map(\.identifier) == ["A-1", "A-2", "A-3"])
            let busy = try context.fetch(FetchRequest<Client>(predicate: #Predicate { $0.invoices.count >= 1 },
                                                              sortBy: [SortDescriptor(\.name)]))
            #expect(busy.map(\.name) == ["Acme", "Globex"])
            let noCity = try context.fetch(FetchRequest<Client>(predicate: #Predicate { $0.city == nil }))
            #expect(noCity.map(\.name) == ["Initech"])
        }
    }

    @Test(arguments: TestStore.all) func sortingThroughAToOneRelationshipUsesTheDestinationsValue(_ store: TestStore) async throws {
        let coordinator = try await seeded(store)
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        let order = try await context.perform { () throws -> [String] in
            try context.fetch(FetchRequest<Invoice>(sortBy: [SortDescriptor(\.client?.name, order: .reverse),
                                                             SortDescriptor(\.identifier)])).map(\.identifier)
        }
        #expect(order == ["G-1", "A-1", "A-2", "A-3"])
    }

    @Test(arguments: TestStore.all) func limitOffsetCountAndIDsDescribeTheSameResult(_ store: TestStore) async throws {
        let coordinator = try await seeded(store)
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        try await context.perform {
            var request = FetchRequest<Invoice>(sortBy: [SortDescriptor(\.identifier)])
            request.fetchLimit = 2
            request.fetchOffset = 1
            #expect(try context.fetch(request).map(\.identifier) == ["A-2", "A-3"])
            let objectIDs = try context.fetch(request).map(\.objectID)
            #expect(try context.fetchObjectIDs(request) == objectIDs)
            let sent = InvoiceStatus.sent
            #expect(try context.count(for: FetchRequest<Invoice>(predicate: #Predicate { $0.status == sent })) == 2)
        }
    }

    @Test(arguments: TestStore.all) func pendingInsertsUpdatesAndDeletesCountInResults(_ store: TestStore) async throws {
        let coordinator = try await seeded(store)
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        try await context.perform {
            let big = #Predicate<Invoice> { $0.amount >= 100 }
            let request = FetchRequest<Invoice>(predicate: big, sortBy: [SortDescriptor(\.identifier)])
            #expect(try context.fetch(request).map(\.identifier) == ["A-1", "A-2", "G-1"])
            let all = try context.fetch(FetchRequest<Invoice>())
            let a1 = try #require(all.first { $0.identifier == "A-1" })
            let a3 = try #require(all.first { $0.identifier == "A-3" })
            let g1 = try #require(all.first { $0.identifier == "G-1" })
            a1.amount = 1            // no longer matches
            a3.amount = 500          // now matches
            context.delete(g1)       // excluded
            let fresh = Invoice(context: context)
            fresh.identifier = "N-1"
            fresh.amount = 100       // a match nobody saved yet
            fresh.client = a1.client
            #expect(try context.fetch(request).map(\.identifier) == ["A-2", "A-3", "N-1"])
            #expect(try context.count(for: request) == 3)
            var storeOnly = request
            storeOnly.includesPendingChanges = false
            #expect(try context.fetch(storeOnly).count == 3)
            // The store-only fetch did not overwrite the unsaved edit.
            #expect(a1.amount == 1)
        }
    }

    @Test(arguments: TestStore.all) func aFetchNeverOverwritesUnsavedEdits(_ store: TestStore) async throws {
        let coordinator = try await seeded(store)
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        try await context.perform {
            let acme = try #require(try context.fetch(FetchRequest<Client>(predicate: #Predicate { $0.name == "Acme" })).first)
            acme.city = "Lyon"
            let again = try context.fetch(FetchRequest<Client>(predicate: #Predicate { $0.name == "Acme" }))
            #expect(again.first === acme)
            #expect(acme.city == "Lyon")
        }
    }

    @Test(arguments: TestStore.all) func anUntranslatablePredicateThrowsAnErrorNamingTheExpression(_ store: TestStore) async throws {
        let coordinator = try await seeded(store)
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        await context.perform {
            let request = FetchRequest<Client>(predicate: #Predicate { $0.name.count > 3 })
            do {
                _ = try context.fetch(request)
                Issue.record("expected an untranslatable predicate")
            } catch let FetchError.untranslatablePredicate(detail) {
                #expect(detail.contains("count"))
            } catch { Issue.record("\(error)") }
        }
    }

    /// SEMANTICS.md §9: a predicate over a computed property is refused, never answered
    /// from the stored property it happens to read.
    @Test(arguments: TestStore.all) func aPredicateOverAComputedPropertyIsUntranslatable(_ store: TestStore) async throws {
        let coordinator = try store.coordinator()
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        try await context.perform {
            let client = Client(context: context)
            client.name = "Acme"
            let invoice = Invoice(context: context)
            invoice.identifier = "inv-1"
            invoice.amount = 5000
            invoice.client = client
            try context.save()
            let computed: [FetchRequest<Invoice>] = [
                FetchRequest(predicate: #Predicate { $0.isLarge }),
                FetchRequest(predicate: #Predicate { $0.shoutedIdentifier == "INV-1" }),
                FetchRequest(predicate: #Predicate { $0.isLarge == true && $0.amount > 0 }),
            ]
            for request in computed {
                #expect(throws: FetchError.self) { _ = try context.fetch(request) }
                #expect(throws: FetchError.self) { _ = try context.count(for: request) }
            }
            // A computed property that returns the stored value unchanged means the same.
            let same = try context.fetch(FetchRequest<Invoice>(predicate: #Predicate { $0.sameIdentifier == "inv-1" }))
            #expect(same.map(\.identifier) == ["inv-1"])
        }
    }

    @Test(arguments: TestStore.all) func caseInsensitiveSearchWorksInTheStoreAndInMemory(_ store: TestStore) async throws {
        let coordinator = try await seeded(store)
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        try await context.perform {
            let term = "GLO"
            let found = try context.fetch(FetchRequest<Client>(predicate: #Predicate { $0.name.localizedStandardContains(term) }))
            #expect(found.map(\.name) == ["Globex"])
            let unsaved = Client(context: context)
            unsaved.name = "Global Dynamics"
            let both = try context.fetch(FetchRequest<Client>(predicate: #Predicate { $0.name.localizedStandardContains(term) },
                                                              sortBy: [SortDescriptor(\.name)]))
            #expect(both.map(\.name) == ["Global Dynamics", "Globex"])
        }
    }

    @Test(arguments: TestStore.all) func aResetContextFetchesSavedObjectsThroughAToOneRelationship(_ store: TestStore) async throws {
        let context = ManagedObjectContext(.privateQueue, coordinator: try store.coordinator())
        try await context.perform {
            let client = Client(context: context)
            client.name = "Memory"
            let invoice = Invoice(context: context)
            invoice.identifier = "M-1"
            invoice.client = client
            try context.save()
            #expect(!client.objectID.isTemporaryID)
            context.reset()
            let fetched = try context.fetch(FetchRequest<Invoice>(predicate: #Predicate { $0.client?.name == "Memory" }))
            #expect(fetched.map(\.identifier) == ["M-1"])
        }
    }
}

@Suite struct ObjectIDPredicateTests {
    @Test(arguments: TestStore.all) func aPredicateCanCompareAnObjectOrItsRelationshipWithACapturedID(_ store: TestStore) async throws {
        let context = ManagedObjectContext(.privateQueue, coordinator: try store.coordinator())
        try await context.perform {
            let acme = Client(context: context)
            acme.name = "Acme"
            let globex = Client(context: context)
            globex.name = "Globex"
            for (identifier, client) in [("A-1", acme), ("A-2", acme), ("G-1", globex)] {
                let invoice = Invoice(context: context)
                invoice.identifier = identifier
                invoice.client = client
            }
            try context.save()
            let acmeID = acme.objectID
            let ofAcme = try context.fetch(FetchRequest<Invoice>(predicate: #Predicate { $0.client?.objectID == acmeID },
                                                                 sortBy: [SortDescriptor(\.identifier)]))
            #expect(ofAcme.map(\.identifier) == ["A-1", "A-2"])
            let itself = try context.fetch(FetchRequest<Client>(predicate: #Predicate { $0.objectID == acmeID }))
            #expect(itself.map(\.name) == ["Acme"])
            // With a pending change the predicate runs in memory too, with the same answer.
            let unsaved = Invoice(context: context)
            unsaved.identifier = "A-3"
            unsaved.client = acme
            let withPending = try context.fetch(FetchRequest<Invoice>(predicate: #Predicate { $0.client?.objectID == acmeID },
                                                                      sortBy: [SortDescriptor(\.identifier)]))
            #expect(withPending.map(\.identifier) == ["A-1", "A-2", "A-3"])
        }
    }
}

@Suite struct CaseInsensitiveSortTests {
    @Test(arguments: TestStore.all) func stringsCanSortIgnoringCaseInTheStoreAndInMemory(_ store: TestStore) async throws {
        let context = ManagedObjectContext(.privateQueue, coordinator: try store.coordinator())
        try await context.perform {
            for name in ["Zed", "acme", "Beta"] { Client(context: context).name = name }
            try context.save()
            var request = FetchRequest<Client>(sortBy: [SortDescriptor(\.name)])
            #expect(try context.fetch(request).map(\.name) == ["Beta", "Zed", "acme"])   // lexical
            request.sortsStringsCaseInsensitively = true
            #expect(try context.fetch(request).map(\.name) == ["acme", "Beta", "Zed"])
            Client(context: context).name = "delta"                                      // pending: sorted in memory
            #expect(try context.fetch(request).map(\.name) == ["acme", "Beta", "delta", "Zed"])
        }
    }
}
