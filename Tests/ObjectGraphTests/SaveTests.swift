import Foundation
import Testing
@testable import ObjectGraph

@Suite struct SaveTests {
    @Test(arguments: TestStore.all) func everyValidationFailureOfASaveIsReportedTogether(_ store: TestStore) async throws {
        let context = ManagedObjectContext(.privateQueue, coordinator: try store.coordinator())
        await context.perform {
            let client = Client(context: context)
            client.name = "   "                       // required: blank
            client.email = "not-an-email"              // pattern
            let invoice = Invoice(context: context)    // required identifier, required client
            invoice.amount = -1                        // minimum 0
            let named = Client(context: context)
            named.name = String(repeating: "x", count: 121)   // maxLength
            do {
                try context.save()
                Issue.record("the save should have failed")
            } catch let SaveError.validationFailed(failures) {
                let found = Set(failures.map { "\($0.objectID.entityName).\($0.property ?? "")" })
                #expect(found == ["Client.name", "Client.email", "Invoice.identifier", "Invoice.amount", "Invoice.client"])
                #expect(failures.contains { $0.code == .stringTooLong })
                #expect(failures.contains { $0.code == .numberTooSmall && $0.message == "Amount must be at least 0." })
                #expect(SaveError.validationFailed(failures).code == 1560)
            } catch {
                Issue.record("unexpected error \(error)")
            }
        }
    }

    @Test(arguments: TestStore.all) func customValidationHooksRunAtSave(_ store: TestStore) async throws {
        let context = ManagedObjectContext(.privateQueue, coordinator: try store.coordinator())
        await context.perform {
            let client = Client(context: context)
            client.name = "Forbidden"
            #expect(throws: SaveError.self) { try context.save() }
            do { try context.save() } catch let SaveError.validationFailed(failures) {
                #expect(failures.map(\.message) == ["This name is not allowed."])
                #expect(failures.first?.objectID == client.objectID)
            } catch { Issue.record("\(error)") }
        }
    }

    @Test(arguments: TestStore.all) func aFailedSaveChangesNothingAndFixingTheValuesLetsItSucceed(_ store: TestStore) async throws {
        let coordinator = try store.coordinator()
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        try await context.perform {
            let client = Client(context: context)
            client.name = ""
            #expect(throws: SaveError.self) { try context.save() }
            #expect(client.objectID.isTemporaryID)
            #expect(context.hasChanges)
            #expect(client.isInserted)
            client.name = "Fixed"
            try context.save()
            #expect(!client.objectID.isTemporaryID)
        }
        let reader = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        let names = try await reader.perform { try reader.fetch(FetchRequest<Client>()).map(\.name) }
        #expect(names == ["Fixed"])
    }

    @Test(arguments: TestStore.all) func aStoreFailureRollsBackTheWholeTransaction(_ store: TestStore) async throws {
        let coordinator = try store.coordinator()
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        try await context.perform {
            let first = Client(context: context)
            first.name = "First"
            first.email = "same@example.com"
            try context.save()
            let cacheBefore = coordinator.rowCacheCount
            // One valid object and one that breaks the unique index: neither may land.
            let valid = Client(context: context)
            valid.name = "Valid"
            let clash = Client(context: context)
            clash.name = "Clash"
            clash.email = "same@example.com"
            do {
                try context.save()
                Issue.record("the save should have failed")
            } catch let SaveError.uniquenessViolation(violation) {
                let (entity, properties) = (violation.entity, violation.properties)
                #expect(entity == "Client")
                #expect(properties == ["email"])
            }
            #expect(coordinator.rowCacheCount == cacheBefore)
            #expect(valid.objectID.isTemporaryID && clash.objectID.isTemporaryID)
            #expect(context.insertedObjects == [valid, clash])
        }
        let reader = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        let names = try await reader.perform { try reader.fetch(FetchRequest<Client>()).map(\.name) }
        #expect(names == ["First"])
    }

    /// A store may write a save's new rows many per statement (PostgreSQL: 512): a clash deep
    /// in a large save, against a stored row or another new row of the same save, still names
    /// the row and its values, and nothing of the save lands.
    @Test(arguments: TestStore.all) func aClashAmongManyNewRowsIsNamedAndNothingLands(_ store: TestStore) async throws {
        let coordinator = try store.coordinator()
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        try await context.perform {
            let stored = Client(context: context)
            stored.name = "Stored"
            stored.email = "stored@example.com"
            try context.save()
            for clashing in ["stored@example.com", "twice@example.com"] {
                var made: [Client] = []
                for n in 0..<600 {
                    let client = Client(context: context)
                    client.name = "New \(n)"
                    client.email = n == 550 || (clashing == "twice@example.com" && n == 20) ? clashing : "new\(n)@example.com"
                    made.append(client)
                }
                do {
                    try context.save()
                    Issue.record("the save should have failed on \(clashing)")
                } catch let SaveError.uniquenessViolation(violation) {
                    #expect(violation.entity == "Client" && violation.properties == ["email"])
                    #expect(violation.values == [.string(clashing)], "\(violation.values)")
                }
                let allTemporary = made.allSatisfy { $0.objectID.isTemporaryID }
                #expect(allTemporary)
                context.rollback()
            }
        }
        let reader = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        let count = try await reader.perform { try reader.count(for: FetchRequest<Client>()) }
        #expect(count == 1)
    }

    @Test(arguments: TestStore.all) func asyncSaveWritesWithoutBlockingTheCaller(_ store: TestStore) async throws {
        let coordinator = try store.coordinator()
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        await context.perform {
            let client = Client(context: context)
            client.name = "Async"
        }
        try await context.save()
        let count = try await context.perform { try context.count(for: FetchRequest<Client>()) }
        #expect(count == 1)
        #expect(await context.perform { context.hasChanges } == false)
    }

    @Test(arguments: TestStore.all) func everyAttributeTypeRoundTripsThroughTheStore(_ store: TestStore) async throws {
        let location = store.makeLocation()
        let coordinator = try location.coordinator()
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        let reference = UUID()
        let date = Date(timeIntervalSince1970: 1_712_345_678.25)
        let id = try await context.perform {
            let client = Client(context: context)
            client.name = "Types"
            client.isActive = false
            let invoice = Invoice(context: context)
            invoice.identifier = "T-1"
            invoice.client = client
            invoice.amount = Decimal(string: "1234567890.12")!
            invoice.status = .paid
            invoice.issueDate = date
            invoice.notes = "ünïcødé ✓"
            invoice.reference = reference
            invoice.attachment = Data([0, 1, 2, 255])
            invoice.quantity = -7
            invoice.weight = 0.1
            invoice.sequence = Int64.max
            try context.save()
            return invoice.objectID
        }
        let reader = ManagedObjectContext(.privateQueue, coordinator: try location.freshReader(of: coordinator))
        try await reader.perform {
            let invoice = try reader.existingObject(with: id, as: Invoice.self)
            #expect(invoice.amount == Decimal(string: "1234567890.12"))
            #expect(invoice.status == .paid)
            #expect(invoice.issueDate == date)
            #expect(invoice.notes == "ünïcødé ✓")
            #expect(invoice.reference == reference)
            #expect(invoice.attachment == Data([0, 1, 2, 255]))
            #expect(invoice.quantity == -7)
            #expect(invoice.weight == 0.1)
            #expect(invoice.sequence == Int64.max)
            #expect(invoice.client?.isActive == false)
        }
    }

    @Test(arguments: TestStore.all) func aSaveWithNoChangesPostsNothing(_ store: TestStore) async throws {
        let context = ManagedObjectContext(.privateQueue, coordinator: try store.coordinator())
        let token = NotificationCenter.default.addObserver(forName: ManagedObjectContext.didSaveNotification, object: context, queue: nil) { _ in
            Issue.record("DidSave posted for an empty save")
        }
        defer { NotificationCenter.default.removeObserver(token) }
        try await context.perform { try context.save() }
    }

    @Test(arguments: TestStore.all) func didSaveCarriesThePermanentIDsOfInsertedObjects(_ store: TestStore) async throws {
        let context = ManagedObjectContext(.privateQueue, coordinator: try store.coordinator())
        let received = LockedBox<Set<ObjectID>>([])
        let token = NotificationCenter.default.addObserver(forName: ManagedObjectContext.didSaveNotification, object: context, queue: nil) { note in
            received.set(note.userInfo?[ManagedObjectContext.ChangeKey.inserted.rawValue] as? Set<ObjectID> ?? [])
        }
        defer { NotificationCenter.default.removeObserver(token) }
        let id = try await context.perform {
            let client = Client(context: context)
            client.name = "Acme"
            try context.save()
            return client.objectID
        }
        #expect(received.get() == [id])
        #expect(!id.isTemporaryID)
    }
}

/// A value shared with notification observers in tests.
final class LockedBox<Value: Sendable>: @unchecked Sendable {
    // @unchecked Sendable: `value` is only touched while `lock` is held.
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func get() -> Value { lock.withLock { value } }
    func set(_ newValue: Value) { lock.withLock { value = newValue } }
}

@Suite struct ConstraintTests {
    @Test(arguments: TestStore.all) func toManyCountsAreCheckedAtSave(_ store: TestStore) async throws {
        let context = ManagedObjectContext(.privateQueue, coordinator: try store.coordinator())
        try await context.perform {
            let team = Team(context: context)
            team.title = "Empty"
            do { try context.save(); Issue.record("expected too few members") }
            catch let SaveError.validationFailed(failures) {
                #expect(failures.map(\.code) == [.relationshipLacksMinimumCount])
            }
            for n in 0..<4 {
                let member = Member(context: context)
                member.first = "M\(n)"
                member.last = "X"
                member.team = team
            }
            do { try context.save(); Issue.record("expected too many members") }
            catch let SaveError.validationFailed(failures) {
                #expect(failures.map(\.code) == [.relationshipExceedsMaximumCount])
                #expect(failures.first?.message == "Members allows at most 3 (has 4).")
            }
            if let extra = team.members.first(where: { $0.first == "M3" }) { context.delete(extra) }
            try context.save()
        }
    }

    @Test(arguments: TestStore.all) func aCompoundUniquenessConstraintComparesTheAttributesTogether(_ store: TestStore) async throws {
        let context = ManagedObjectContext(.privateQueue, coordinator: try store.coordinator())
        try await context.perform {
            let team = Team(context: context)
            team.title = "T"
            for (first, last) in [("Ada", "Lovelace"), ("Ada", "Byron"), ("Grace", "Lovelace")] {
                let member = Member(context: context)
                member.first = first
                member.last = last
                member.team = team
            }
            try context.save()      // same first or same last alone is fine
            let clash = Member(context: context)
            clash.first = "Ada"
            clash.last = "Lovelace"
            clash.team = Team(context: context)
            clash.team?.title = "Other"
            do { try context.save(); Issue.record("expected a uniqueness violation") }
            catch let SaveError.uniquenessViolation(violation) {
                let (entity, properties) = (violation.entity, violation.properties)
                #expect(entity == "Member")
                #expect(properties == ["first", "last"])
            }
        }
    }
}
