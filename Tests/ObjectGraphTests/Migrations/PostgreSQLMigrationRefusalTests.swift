import Foundation
import Testing
@testable import ObjectGraph

/// What PostgreSQL refuses of a plan that an SQLite file runs: stages that rename, remove or
/// convert, and custom stages. The refusal names each change, and the database is as it was,
/// still usable by version 1.
@Suite(.enabled(if: TestStore.isPostgreSQLAvailable, "PostgreSQL is not installed: see PostgreSQLAvailabilityTests"))
struct PostgreSQLMigrationRefusalTests {
    /// Opens a version 1 database with `model` and `plan`; returns the error, after checking
    /// that nothing was written and that version 1 still reads and saves.
    static func refusal(model: ManagedObjectModel, plan: MigrationPlan) async throws -> MigrationError? {
        let location = try await AdditiveMigrationTests.givenAV1Store(.postgreSQL)
        let before = try StoreState(of: location)
        let error = #expect(throws: MigrationError.self) { _ = try location.coordinator(model: model, plan: plan) }
        #expect(try StoreState(of: location) == before)
        let context = ManagedObjectContext(.privateQueue, coordinator: try location.coordinator(model: LedgerV1.model))
        let names = try await context.perform {
            LedgerV1.Customer(context: context).name = "Customer 3"
            try context.save()
            return try context.fetch(FetchRequest<LedgerV1.Customer>(sortBy: [SortDescriptor(\.name)])).map(\.name)
        }
        #expect(names == ["Customer 1", "Customer 2", "Customer 3"])
        return error
    }

    @Test func aStageThatRenamesIsRefusedNamingTheRename() async throws {
        let error = try await Self.refusal(model: LedgerRenamed.model, plan: try LedgerRenamed.plan())
        guard case .changesNotAdditive(_, let stage, let changes)? = error else {
            Issue.record("expected changesNotAdditive, got \(String(describing: error))")
            return
        }
        #expect(stage == "1 → 2")
        #expect(changes == ["property Customer.name is renamed fullName"])
        #expect(error?.description.contains("Nothing was changed") == true)
    }

    @Test func aCustomStageIsRefusedSayingItRunsOnSQLiteOnly() async throws {
        let error = try await Self.refusal(model: LedgerV2.model, plan: try LedgerRenamed.customPlan())
        guard case .changesNotAdditive(_, let stage, let changes)? = error else {
            Issue.record("expected changesNotAdditive, got \(String(describing: error))")
            return
        }
        #expect(stage == "1 → 2 (count)")
        #expect(changes.contains { $0.contains("custom stage") && $0.contains("SQLite") })
    }
}
