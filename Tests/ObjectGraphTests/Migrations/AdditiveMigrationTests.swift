import Foundation
import Testing
@testable import ObjectGraph

/// A store written by version 1 and opened by version 2 with a plan whose one stage only adds
/// (``LedgerV2``), on every store that outlives its coordinator: SQLite files and PostgreSQL
/// run the same decision (``SchemaDecision``, the stage's `StageChange`), each in its own SQL.
@Suite struct AdditiveMigrationTests {
    /// A version 1 store with two customers (one with an order each) at a new location.
    static func givenAV1Store(_ store: TestStore, orderNumbers: [String] = ["A-1", "A-2"],
                              recordsHistory: Bool = false) async throws -> StoreLocation {
        let location = store.makeLocation()
        let coordinator = try location.coordinator(model: LedgerV1.model, recordsHistory: recordsHistory)
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        try await context.perform {
            for (n, number) in orderNumbers.enumerated() {
                let customer = LedgerV1.Customer(context: context)
                customer.name = "Customer \(n + 1)"
                if n == 0 { customer.city = "Lyon" }
                let order = LedgerV1.Order(context: context)
                order.number = number
                order.customer = customer
            }
            try context.save()
        }
        return location
    }

    static func customers(in coordinator: PersistentStoreCoordinator) async throws
        -> [(name: String, city: String, tier: Int, note: String?, orders: [String])] {
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        return try await context.perform {
            try context.fetch(FetchRequest<LedgerV2.Customer>(sortBy: [SortDescriptor(\.name)]))
                .map { ($0.name, $0.city, $0.tier, $0.note, $0.orders.map(\.number)) }
        }
    }

    @Test(arguments: TestStore.shared)
    func dataWrittenUnderV1SurvivesAndReadsTheNewAndNowRequiredAttributesDefaults(_ store: TestStore) async throws {
        let location = try await Self.givenAV1Store(store)
        defer { location.cleanUp() }
        let identifier = try location.coordinator(model: LedgerV1.model).storeIdentifier

        let coordinator = try location.coordinator(model: LedgerV2.model, plan: try LedgerV2.plan())

        #expect(coordinator.storeIdentifier == identifier)
        guard case .migrated(let report)? = coordinator.migrationOutcome else {
            Issue.record("expected a migration, got \(String(describing: coordinator.migrationOutcome))")
            return
        }
        #expect(report.fromVersion == 1 && report.toVersion == 2 && report.stages == ["1 → 2"])
        let customers = try await Self.customers(in: coordinator)
        #expect(customers.map(\.name) == ["Customer 1", "Customer 2"])
        #expect(customers.map(\.tier) == [1, 1])
        #expect(customers.map(\.city) == ["Lyon", "Unknown"])
        #expect(customers.allSatisfy { $0.note == nil })
        #expect(customers.map(\.orders) == [["A-1"], ["A-2"]])
        #expect(try location.columns(of: "Customer").filter { $0 == "tier" }.count == 1)
    }

    @Test(arguments: TestStore.shared)
    func theAddedEntitiesRelationshipsAndIndexesAreUsable(_ store: TestStore) async throws {
        let location = try await Self.givenAV1Store(store)
        defer { location.cleanUp() }
        let coordinator = try location.coordinator(model: LedgerV2.model, plan: try LedgerV2.plan())
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        try await context.perform {
            let first = try #require(try context.fetch(FetchRequest<LedgerV2.Customer>(sortBy: [SortDescriptor(\.name)])).first)
            let region = LedgerV2.Region(context: context)
            region.name = "North"
            let tag = LedgerV2.Tag(context: context)
            tag.label = "vip"
            first.region = region
            first.tags.insert(tag)
            first.tier = 3
            first.note = "pays early"
            try context.save()
        }

        let reader = ManagedObjectContext(.privateQueue, coordinator: try location.coordinator(model: LedgerV2.model))
        let read = try await reader.perform {
            let first = try #require(try reader.fetch(FetchRequest<LedgerV2.Customer>(sortBy: [SortDescriptor(\.name)])).first)
            return (first.region?.name, first.tags.map(\.label), first.tier, first.note)
        }
        #expect(read.0 == "North")
        #expect(read.1 == ["vip"])
        #expect(read.2 == 3)
        #expect(read.3 == "pays early")
        let indexes = try location.indexNames()
        #expect(indexes.isSuperset(of: ["Customer_name_index", "Customer_region", "Order_unique_0"]), "\(indexes)")
        // The new uniqueness constraint holds from now on.
        let duplicate = await reader.perform { () -> Error? in
            let order = LedgerV2.Order(context: reader)
            order.number = "A-1"
            do { try reader.save(); return nil } catch { return error }
        }
        #expect(duplicate != nil)
    }

    @Test(arguments: TestStore.shared)
    func theMigratedStoreIsAtVersion2AndVersion1IsRefused(_ store: TestStore) async throws {
        let location = try await Self.givenAV1Store(store)
        defer { location.cleanUp() }
        _ = try location.coordinator(model: LedgerV2.model, plan: try LedgerV2.plan())

        let again = try location.coordinator(model: LedgerV2.model, plan: try LedgerV2.plan())
        #expect(again.migrationOutcome == nil)
        #expect(throws: MigrationError.self) { _ = try location.coordinator(model: LedgerV1.model) }
        do {
            _ = try location.coordinator(model: LedgerV1.model)
        } catch MigrationError.newerVersion(_, let stored, let app) {
            #expect(stored == 2 && app == 1)
        }
    }

    @Test(arguments: TestStore.shared)
    func aDuplicateUnderTheNewUniquenessConstraintLeavesTheStoreUntouchedAndUsableByV1(_ store: TestStore) async throws {
        // Given a version 1 store where two orders share a number
        let location = try await Self.givenAV1Store(store, orderNumbers: ["A-1", "A-9", "A-1"])
        defer { location.cleanUp() }
        let before = try StoreState(of: location)

        // When version 2, which makes order numbers unique, opens it
        let error = #expect(throws: MigrationError.self) {
            _ = try location.coordinator(model: LedgerV2.model, plan: try LedgerV2.plan())
        }

        // Then the stage fails naming both orders, and nothing was written
        guard case .stageFailed(let failure)? = error, case .duplicate(let other) = failure.reason else {
            Issue.record("expected a duplicate, got \(String(describing: error))")
            return
        }
        #expect(failure.entity == "Order" && failure.property == "number")
        #expect(failure.value == .string("A-1"))
        #expect(other < (failure.primaryKey ?? 0))
        #expect(try StoreState(of: location) == before)
        let context = ManagedObjectContext(.privateQueue, coordinator: try location.coordinator(model: LedgerV1.model))
        let count = try await context.perform {
            LedgerV1.Customer(context: context).name = "After the refusal"
            try context.save()
            return try context.count(for: FetchRequest<LedgerV1.Customer>())
        }
        #expect(count == 4)
    }

    @Test(arguments: TestStore.shared)
    func aTextLongerThanTheNewLimitLeavesTheStoreUntouched(_ store: TestStore) async throws {
        let location = try await Self.givenAV1Store(store, orderNumbers: ["A-1", "A-123456789"])
        defer { location.cleanUp() }
        let before = try StoreState(of: location)

        let error = #expect(throws: MigrationError.self) {
            _ = try location.coordinator(model: LedgerV2.model, plan: try LedgerV2.plan())
        }

        guard case .stageFailed(let failure)? = error else {
            Issue.record("expected a stage failure, got \(String(describing: error))")
            return
        }
        #expect(failure.reason == .tooLong(maximum: 8))
        #expect(failure.entity == "Order" && failure.property == "number" && failure.value == .string("A-123456789"))
        #expect(try StoreState(of: location) == before)
    }

    @Test(arguments: TestStore.shared)
    func anOlderStoreWithoutAPlanIsRefusedUntouched(_ store: TestStore) async throws {
        let location = try await Self.givenAV1Store(store)
        defer { location.cleanUp() }
        let before = try StoreState(of: location)

        let error = #expect(throws: MigrationError.self) { _ = try location.coordinator(model: LedgerV2.model) }

        guard case .noMigrationPlan(_, let stored, let app)? = error else {
            Issue.record("expected noMigrationPlan, got \(String(describing: error))")
            return
        }
        #expect(stored == 1 && app == 2)
        let setting = store.kind == .postgreSQL ? "PostgreSQLStore.Configuration.migrationPlan" : "PersistentStoreDescription.migrationPlan"
        #expect(error?.description.contains(setting) == true)
        #expect(try StoreState(of: location) == before)
    }

    @Test(arguments: TestStore.shared)
    func twoCoordinatorsOpeningV2AtOnceMigrateOnce(_ store: TestStore) async throws {
        let location = try await Self.givenAV1Store(store)
        defer { location.cleanUp() }
        let plan = try LedgerV2.plan()

        // Both open on threads of their own at the same moment: opening blocks on I/O.
        @Sendable func open() async throws -> MigrationOutcome? {
            try await withCheckedThrowingContinuation { continuation in
                Thread.detachNewThread {
                    continuation.resume(with: Result { try location.coordinator(model: LedgerV2.model, plan: plan).migrationOutcome })
                }
            }
        }
        async let a = open()
        async let b = open()
        let outcomes = [try await a, try await b]

        // One migrated; the other found it done, having waited (migratedElsewhere) or not (nil).
        let migrated = outcomes.filter { if case .migrated = $0 { true } else { false } }
        #expect(migrated.count == 1, "\(outcomes)")
        let others = outcomes.filter { if case .migrated = $0 { false } else { true } }
        #expect(others.allSatisfy { $0 == nil || $0 == .migratedElsewhere(fromVersion: 1, toVersion: 2) }, "\(outcomes)")
        #expect(try location.columns(of: "Customer").filter { $0 == "tier" }.count == 1)
        let customers = try await Self.customers(in: try location.coordinator(model: LedgerV2.model))
        #expect(customers.map(\.tier) == [1, 1])
    }

    @Test(arguments: TestStore.shared)
    func theMigrationIsOneHistoryTransactionWithoutChangesAndOldTokensStillWork(_ store: TestStore) async throws {
        // Given a version 1 store with history, and a token taken before the migration
        let location = try await Self.givenAV1Store(store, recordsHistory: true)
        defer { location.cleanUp() }
        let token = try #require(try location.coordinator(model: LedgerV1.model, recordsHistory: true).history(after: nil).last?.token)

        // When version 2 migrates it, and history after the token is read
        let coordinator = try location.coordinator(model: LedgerV2.model, recordsHistory: true, plan: try LedgerV2.plan())
        let after = try coordinator.history(after: token)

        // Then it is the migration alone: one transaction by "migration", with no changes
        #expect(after.count == 1)
        #expect(after.first?.author == "migration")
        #expect(after.first?.contextName == "migration 1 → 2")
        #expect(after.first?.changes.isEmpty == true)
    }

    @Test(arguments: TestStore.shared)
    func coordinatorsOpeningANewStoreAtOnceCreateItOnce(_ store: TestStore) async throws {
        let location = store.makeLocation()
        defer { location.cleanUp() }

        let identifiers = try await withThrowingTaskGroup(of: UUID?.self) { group in
            for _ in 0..<3 {
                group.addTask {
                    try await withCheckedThrowingContinuation { continuation in
                        Thread.detachNewThread {
                            continuation.resume(with: Result { try location.coordinator(model: LedgerV2.model).storeIdentifier })
                        }
                    }
                }
            }
            return try await group.reduce(into: [UUID?]()) { $0.append($1) }
        }

        #expect(identifiers.count == 3)
        #expect(Set(identifiers).count == 1, "\(identifiers)")
    }
}
