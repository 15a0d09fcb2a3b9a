import Foundation
import Testing
@testable import ObjectGraph

/// Batch insert, update and delete: SQL without objects, all or nothing, with the model's
/// rules, and merged into contexts from the IDs they return.
@Suite struct BatchTests {
    static func clientID(named name: String, in context: ManagedObjectContext) async throws -> ObjectID {
        try await context.perform {
            let client = Client(context: context)
            client.name = name
            try context.save()
            return client.objectID
        }
    }

    static func invoiceRows(_ count: Int, client: ObjectID, prefix: String = "B") -> [PropertyValues<Invoice>] {
        (0..<count).map { n in
            var row = PropertyValues<Invoice>()
            row.set(\.identifier, to: "\(prefix)-\(n)")
            row.set(\.amount, to: Decimal(n))
            row.set(\.status, to: n.isMultiple(of: 2) ? .sent : .draft)
            row.set(\.client, to: client)
            return row
        }
    }

    @Test(arguments: TestStore.all) func aBatchInsertWritesEveryRowWithDefaultsAndReturnsPermanentIDs(_ store: TestStore) async throws {
        let coordinator = try store.coordinator()
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        let client = try await Self.clientID(named: "Acme", in: context)

        let result = try coordinator.execute(BatchInsertRequest(rows: Self.invoiceRows(2_500, client: client)))
        #expect(result.count == 2_500)
        #expect(result.objectIDs.allSatisfy { !$0.isTemporaryID && $0.entityName == "Invoice" })
        #expect(Set(result.objectIDs).count == 2_500)
        #expect(result.changes.inserted.count == 2_500)

        let (count, first, viaClient) = try await context.perform {
            let all = try context.fetch(FetchRequest<Invoice>(sortBy: [SortDescriptor(\.identifier)]))
            let acme = try context.existingObject(with: client, as: Client.self)
            return (all.count, all.first.map { ($0.identifier, $0.currency, $0.quantity, $0.client?.name) }, acme.invoices.count)
        }
        #expect(count == 2_500)
        #expect(first?.0 == "B-0")
        #expect(first?.1 == "EUR")        // declared default
        #expect(first?.2 == 1)            // declared default
        #expect(first?.3 == "Acme")
        #expect(viaClient == 2_500)
    }

    @Test(arguments: TestStore.all) func anInvalidRowRefusesTheWholeBatchAndSaysWhichRowsAndWhy(_ store: TestStore) async throws {
        let coordinator = try store.coordinator()
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        let client = try await Self.clientID(named: "Acme", in: context)
        var rows = Self.invoiceRows(10, client: client)
        rows[3].set(\.amount, to: Decimal(-1))
        rows[7].set(\.identifier, to: "  ")
        var orphan = PropertyValues<Invoice>()
        orphan.set(\.identifier, to: "orphan")
        rows.append(orphan)

        do {
            try coordinator.execute(BatchInsertRequest(rows: rows))
            Issue.record("the batch was accepted")
        } catch let BatchError.invalidRows(failures) {
            #expect(failures.map(\.row) == [3, 7, 10])
            #expect(failures.map(\.property) == ["amount", "identifier", "client"])
            #expect(failures[0].message.contains("at least 0"))
        }
        let count = try await context.perform { try context.count(for: FetchRequest<Invoice>()) }
        #expect(count == 0)
    }

    @Test(arguments: TestStore.all) func aDuplicateUniqueValueRefusesTheBatchWithNothingWritten(_ store: TestStore) async throws {
        let coordinator = try store.coordinator()
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        let client = try await Self.clientID(named: "Acme", in: context)
        try coordinator.execute(BatchInsertRequest(rows: Self.invoiceRows(3, client: client)))

        #expect(throws: BatchError.self) {
            try coordinator.execute(BatchInsertRequest(rows: Self.invoiceRows(5, client: client, prefix: "C")
                                                       + Self.invoiceRows(1, client: client)))
        }
        let count = try await context.perform { try context.count(for: FetchRequest<Invoice>()) }
        #expect(count == 3)
    }

    @Test(arguments: TestStore.all) func aDestinationOfTheWrongEntityIsRefused(_ store: TestStore) async throws {
        let coordinator = try store.coordinator()
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        let tag = try await context.perform {
            let tag = Tag(context: context); tag.label = "x"; try context.save(); return tag.objectID
        }
        var row = PropertyValues<Invoice>()
        row.set(\.identifier, to: "I-1")
        row.set(\.client, to: tag)
        #expect(throws: BatchError.invalidDestination(property: "client", objectID: tag)) {
            try coordinator.execute(BatchInsertRequest(rows: [row]))
        }
    }

    @Test(arguments: TestStore.all) func aBatchUpdateChangesTheMatchingRowsAndAStaleEditConflictsAtSave(_ store: TestStore) async throws {
        let location = store.makeLocation()
        defer { location.cleanUp() }
        let coordinator = try location.coordinator()
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        let client = try await Self.clientID(named: "Acme", in: context)
        let ids = try coordinator.execute(BatchInsertRequest(rows: Self.invoiceRows(10, client: client))).objectIDs

        // A context holds an edit of a row the batch will change.
        let holder = try await context.perform {
            let invoice = try context.existingObject(with: ids[0], as: Invoice.self)
            invoice.notes = "edited before the batch"
            return invoice.objectID
        }
        var values = PropertyValues<Invoice>()
        values.set(\.status, to: .paid)
        values.set(\.notes, to: "settled")
        let sent = InvoiceStatus.sent, paid = InvoiceStatus.paid
        let result = try coordinator.execute(BatchUpdateRequest(predicate: #Predicate<Invoice> { $0.status == sent }, set: values))
        #expect(result.count == 5)
        #expect(Set(result.objectIDs) == Set(ids.enumerated().filter { $0.offset.isMultiple(of: 2) }.map(\.element)))

        // Merged, the context shows the batch's values, keeping its own edit on top.
        let statuses = try await context.perform {
            context.mergeChanges(result.changes)
            return try context.fetch(FetchRequest<Invoice>(predicate: #Predicate { $0.status == paid })).count
        }
        #expect(statuses == 5)
        // Both changed `notes`: saving the edit made on the old version is a conflict.
        await #expect(throws: SaveError.self) {
            try await context.perform { try context.save() }
        }
        _ = holder
    }

    @Test(arguments: TestStore.all) func aBatchUpdateOfARequiredRelationshipToNilIsRefused(_ store: TestStore) throws {
        let coordinator = try store.coordinator()
        var values = PropertyValues<Invoice>()
        values.set(\.client, to: nil)
        #expect(throws: BatchError.self) { try coordinator.execute(BatchUpdateRequest<Invoice>(set: values)) }
    }

    @Test(arguments: TestStore.all) func aBatchDeleteCascadesAndRemovesLinksInSQL(_ store: TestStore) async throws {
        let coordinator = try store.coordinator()
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        let (acme, other, tag) = try await context.perform {
            let acme = Client(context: context); acme.name = "Acme"
            let other = Client(context: context); other.name = "Other"
            let tag = Tag(context: context); tag.label = "key"
            acme.tags = [tag]
            try context.save()
            return (acme.objectID, other.objectID, tag.objectID)
        }
        try coordinator.execute(BatchInsertRequest(rows: Self.invoiceRows(20, client: acme)))
        try coordinator.execute(BatchInsertRequest(rows: Self.invoiceRows(5, client: other, prefix: "O")))

        let result = try coordinator.execute(BatchDeleteRequest<Client>(predicate: #Predicate { $0.name == "Acme" }))
        #expect(result.objectIDs == [acme])
        #expect(result.changes.deleted.count == 21)   // the client and its 20 invoices (cascade)

        let (clients, invoices, tagClients) = try await context.perform {
            (try context.fetch(FetchRequest<Client>()).map(\.name),
             try context.count(for: FetchRequest<Invoice>()),
             try context.existingObject(with: tag, as: Tag.self).clients.count)
        }
        #expect(clients == ["Other"])
        #expect(invoices == 5)
        #expect(tagClients == 0)
    }

    @Test(arguments: TestStore.all) func aDenyRuleRefusesABatchDeleteWithNothingDeleted(_ store: TestStore) async throws {
        let coordinator = try store.coordinator()
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        let (parent, acmeInvoice) = try await context.perform {
            let parent = TaskItem(context: context); parent.title = "parent"
            let child = TaskItem(context: context); child.title = "child"; child.parentTask = parent
            let acme = Client(context: context); acme.name = "Acme"
            let invoice = Invoice(context: context); invoice.identifier = "I-1"; invoice.client = acme
            try context.save()
            return (parent.objectID, invoice.objectID)
        }
        #expect(throws: BatchError.deleteDenied(entity: "TaskItem", relationship: "subtasks", count: 1)) {
            try coordinator.execute(BatchDeleteRequest<TaskItem>(objectIDs: [parent]))
        }
        // Deleting the child too satisfies deny.
        let both = try coordinator.execute(BatchDeleteRequest<TaskItem>(predicate: nil))
        #expect(both.count == 2)
        _ = acmeInvoice
        let remaining = try await context.perform { try context.count(for: FetchRequest<Invoice>()) }
        #expect(remaining == 1)
    }

    @Test(arguments: TestStore.all) func aBatchDeleteByIDsDeletesEachRowOnceAndSkipsRowsAlreadyGone(_ store: TestStore) async throws {
        let coordinator = try store.coordinator()
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        let acme = try await Self.clientID(named: "Acme", in: context)
        let ids = try coordinator.execute(BatchInsertRequest(rows: Self.invoiceRows(3, client: acme))).objectIDs
        try coordinator.execute(BatchDeleteRequest<Invoice>(objectIDs: [ids[2]]))

        let result = try coordinator.execute(BatchDeleteRequest<Invoice>(objectIDs: [ids[0], ids[0], ids[2]]))
        #expect(result.objectIDs == [ids[0]])
        let left = try await context.perform { try context.fetch(FetchRequest<Invoice>()).map(\.objectID) }
        #expect(left == [ids[1]])
    }

    @Test(arguments: TestStore.all) func aBatchDeleteIsRecordedInHistoryAndMergedIntoTheContextChain(_ store: TestStore) async throws {
        let location = store.makeLocation()
        defer { location.cleanUp() }
        let coordinator = try location.coordinator(recordsHistory: true)
        let writer = ManagedObjectContext(.privateQueue, coordinator: coordinator, name: "writer")
        let main = ManagedObjectContext(.privateQueue, parent: writer, name: "main")
        let acme = try await Self.clientID(named: "Acme", in: writer)
        let ids = try coordinator.execute(BatchInsertRequest(rows: Self.invoiceRows(4, client: acme))).objectIDs
        let before = try coordinator.currentHistoryToken()

        // main shows an invoice, then runs a batch delete of the drafts itself.
        let draft = InvoiceStatus.draft
        let holder = try await main.perform {
            let shown = try main.existingObject(with: ids[1], as: Invoice.self)
            _ = shown.identifier
            main.transactionAuthor = "cleanup"
            let result = try main.execute(BatchDeleteRequest<Invoice>(predicate: #Predicate { $0.status == draft }))
            return (result.count, shown.isDeletedElsewhere)
        }
        #expect(holder.0 == 2)
        #expect(holder.1)
        let transaction = try #require(try coordinator.history(after: before).first)
        #expect(transaction.author == "cleanup")
        #expect(transaction.contextName == "main")
        #expect(Set(transaction.changes.map(\.objectID)) == [ids[1], ids[3]])
        #expect(transaction.changes.allSatisfy { $0.kind == .delete })
    }

    @Test(arguments: TestStore.all) func aKeyPathThatIsNotAStoredPropertyIsRefused(_ store: TestStore) throws {
        let coordinator = try store.coordinator()
        var values = PropertyValues<Client>()
        values.set(\.objectID.entityName, to: "x")
        #expect(throws: BatchError.self) { try coordinator.execute(BatchUpdateRequest<Client>(set: values)) }
    }
}

/// Batch requests keep the to-many side of a changed to-one in step, and refuse inverses
/// they cannot.
@Suite struct BatchRelationshipTests {
    @Test(arguments: TestStore.all) func movingInvoicesToAnotherClientUpdatesBothClientsInvoiceLists(_ store: TestStore) async throws {
        let coordinator = try store.coordinator()
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        let acme = try await BatchTests.clientID(named: "Acme", in: context)
        let beta = try await BatchTests.clientID(named: "Beta", in: context)
        try coordinator.execute(BatchInsertRequest(rows: BatchTests.invoiceRows(3, client: acme)))
        let holder = ObjectBox()
        let before = try await context.perform {
            let client = try context.existingObject(with: acme, as: Client.self)
            holder.object = client
            return client.invoices.count
        }
        #expect(before == 3)

        let result = try await context.perform {
            var move = PropertyValues<Invoice>()
            move.set(\.client, to: beta)
            return try context.execute(BatchUpdateRequest<Invoice>(set: move))
        }
        #expect(result.count == 3)
        #expect(result.changes.updated.isSuperset(of: [acme, beta]))
        let (acmeCount, betaCount) = try await context.perform {
            ((holder.object as? Client)?.invoices.count, try context.existingObject(with: beta, as: Client.self).invoices.count)
        }
        #expect(acmeCount == 0)
        #expect(betaCount == 3)
        await context.perform { holder.object = nil }
    }

    @Test(arguments: TestStore.all) func aToOneWithAnOrderedInverseIsRefused(_ store: TestStore) throws {
        let coordinator = try store.coordinator()
        var values = PropertyValues<TaskItem>()
        values.set(\.project, to: nil)
        #expect(throws: BatchError.unsupportedRelationship(entity: "TaskItem", relationship: "project", inverse: "tasks")) {
            try coordinator.execute(BatchUpdateRequest<TaskItem>(set: values))
        }
    }

    @Test(arguments: TestStore.all) func aRequestOfRowsCanRunTwice(_ store: TestStore) async throws {
        let coordinator = try store.coordinator()
        var row = PropertyValues<Tag>()
        row.set(\.label, to: "again")
        let request = BatchInsertRequest(rows: [row, row])
        #expect(try coordinator.execute(request).count == 2)
        #expect(try coordinator.execute(request).count == 2)
    }
}

/// A row invalidated because it changed elsewhere is not put back by a read that started
/// before the change.
@Suite struct RowCacheFloorTests {
    @Test func aSnapshotOlderThanAnInvalidationIsRefused() {
        let cache = RowCache()
        let id = ObjectID(entityName: "Client", key: .permanent(store: UUID(), primaryKey: 1))
        cache.store([(id, RowSnapshot(values: [.string("old")], version: 3))])
        cache.retain(id)
        cache.invalidate(id)
        cache.store([(id, RowSnapshot(values: [.string("old")], version: 3))])   // a late reader
        #expect(cache.snapshot(for: id) == nil)
        cache.store([(id, RowSnapshot(values: [.string("new")], version: 4))])
        #expect(cache.snapshot(for: id)?.version == 4)
    }
}
