import Foundation
import ObjectGraph
import ObjectGraphFixtureModel
import Testing

/// Which files a plan takes, and which it refuses before touching them: files of a later or
/// unknown version, files whose tables are not their version's, and plans with a gap.
@Suite struct MigrationVersionTests {
    static let invoices: [InvoiceFiles.Invoice] = [.init(number: "INV-1", amount: 10)]

    static func version3File() async throws -> URL {
        let url = try await InvoiceFiles.version1(invoices)
        _ = try InvoiceFiles.open(url, with: InvoicesV3.model, plan: try InvoicesMigration.plan())
        return url
    }

    @Test func aFileOfANewerVersionIsRefusedNamingBothVersions() async throws {
        // Given a file migrated to version 3
        let url = try await Self.version3File()
        defer { StoreFileState.cleanUp(url) }
        let before = try Data(contentsOf: url)

        // When an app of version 1 opens it (with no plan: none is needed to refuse)
        let error = #expect(throws: MigrationError.self) { _ = try InvoiceFiles.open(url, with: InvoicesV1.model) }

        // Then it is refused: the file is of version 3, the app knows 1; nothing changed
        #expect(error == .newerVersion(path: url.path, fileVersion: 3, appVersion: 1))
        #expect(error?.description.contains("version 3") == true)
        #expect(error?.description.contains("up to 1") == true)
        #expect(try Data(contentsOf: url) == before)
    }

    @Test func aNewerFileIsRefusedEvenByAnAppWithAPlan() async throws {
        // Given a file migrated to version 3
        let url = try await Self.version3File()
        defer { StoreFileState.cleanUp(url) }

        // When an app of version 2, with its plan from version 1, opens it
        let plan = try MigrationPlan(models: [InvoicesV1.model, InvoicesV2.model], stages: [.lightweight(from: 1, to: 2)])
        let error = #expect(throws: MigrationError.self) { _ = try InvoiceFiles.open(url, with: InvoicesV2.model, plan: plan) }

        // Then it is refused as newer
        #expect(error == .newerVersion(path: url.path, fileVersion: 3, appVersion: 2))
    }

    @Test func aFileOfAVersionThePlanDoesNotListIsRefused() async throws {
        // Given a version 1 file, and a plan that starts at version 2
        let url = try await InvoiceFiles.version1(Self.invoices)
        defer { StoreFileState.cleanUp(url) }
        let plan = try MigrationPlan(models: [InvoicesV2.model, InvoicesV3.model], stages: [
            .custom(from: 2, to: 3) { _ in },
        ])
        let before = try Data(contentsOf: url)

        // When version 3 opens it
        let error = #expect(throws: MigrationError.self) { _ = try InvoiceFiles.open(url, with: InvoicesV3.model, plan: plan) }

        // Then it is refused, listing the versions the plan knows; nothing changed
        #expect(error == .unknownVersion(path: url.path, fileVersion: 1, knownVersions: [2, 3]))
        #expect(try Data(contentsOf: url) == before)
    }

    @Test func anOlderFileWithoutAPlanIsRefused() async throws {
        // Given a version 1 file
        let url = try await InvoiceFiles.version1(Self.invoices)
        defer { StoreFileState.cleanUp(url) }

        // When version 3 opens it without a plan
        let error = #expect(throws: MigrationError.self) { _ = try InvoiceFiles.open(url, with: InvoicesV3.model) }

        // Then it is refused, saying a plan is needed
        #expect(error == .noMigrationPlan(path: url.path, fileVersion: 1, appVersion: 3))
        #expect(error?.description.contains("migrationPlan") == true)
    }

    @Test func aPlanWithAGapIsRefusedWhenItIsMade() {
        // When a plan lists versions 1, 2 and 3 but has no stage from 2 to 3
        let error = #expect(throws: MigrationPlanError.self) {
            _ = try MigrationPlan(models: [InvoicesV1.model, InvoicesV2.model, InvoicesV3.model],
                                  stages: [.lightweight(from: 1, to: 2)])
        }

        // Then making it fails, naming the missing stage
        #expect(error == .missingStage(from: 2, to: 3))
        #expect(error?.description.contains("no stage from version 2 to 3") == true)
    }

    @Test func aStageThatSkipsAVersionIsRefused() {
        let error = #expect(throws: MigrationPlanError.self) {
            _ = try MigrationPlan(models: [InvoicesV1.model, InvoicesV2.model, InvoicesV3.model],
                                  stages: [.lightweight(from: 1, to: 3), .custom(from: 2, to: 3) { _ in }])
        }
        guard case .misplacedStage(let stage, _)? = error else {
            Issue.record("expected misplacedStage, got \(String(describing: error))")
            return
        }
        #expect(stage == "1 → 3")
    }

    @Test func twoModelsOfOneVersionAreRefused() {
        let error = #expect(throws: MigrationPlanError.self) {
            _ = try MigrationPlan(models: [InvoicesV1.model, InvoicesV1.model], stages: [])
        }
        #expect(error == .duplicateVersion(1))
    }

    @Test func aPlanThatDoesNotEndAtTheCoordinatorsModelIsRefusedBeforeTheFileIsRead() async throws {
        // Given a version 1 file and a plan that ends at version 2
        let url = try await InvoiceFiles.version1(Self.invoices)
        defer { StoreFileState.cleanUp(url) }
        let plan = try MigrationPlan(models: [InvoicesV1.model, InvoicesV2.model], stages: [.lightweight(from: 1, to: 2)])

        // When version 3 opens it with that plan
        let error = #expect(throws: MigrationPlanError.self) { _ = try InvoiceFiles.open(url, with: InvoicesV3.model, plan: plan) }

        // Then the plan is refused, and the file is still at version 1
        #expect(error == .modelNotInPlan(modelVersion: 3, planVersion: 2))
        #expect(try PersistentStoreCoordinator.modelVersion(ofStoreAt: url) == 1)
    }

    @Test func aFileWhoseTablesAreNotThoseOfItsVersionIsRefused() async throws {
        // Given a file written by a model that says it is version 1 but has version 2's classes
        let url = TestStack.fileURL()
        defer { StoreFileState.cleanUp(url) }
        let mislabelled = try ManagedObjectModel(entities: [InvoicesV2.Client.self, InvoicesV2.Invoice.self], version: 1)
        _ = try InvoiceFiles.open(url, with: mislabelled)
        let before = try Data(contentsOf: url)

        // When version 3 opens it with the plan
        let error = #expect(throws: MigrationError.self) {
            _ = try InvoiceFiles.open(url, with: InvoicesV3.model, plan: try InvoicesMigration.plan())
        }

        // Then it is refused, naming how it differs from version 1; nothing changed
        guard case .fileDoesNotMatchVersion(_, let version, let differences)? = error else {
            Issue.record("expected fileDoesNotMatchVersion, got \(String(describing: error))")
            return
        }
        #expect(version == 1)
        #expect(differences.contains("attribute Invoice.identifier was removed"))
        #expect(try Data(contentsOf: url) == before)
    }

    @Test func aFileWrittenBeforeVersionsWereRecordedCountsAsVersion1() async throws {
        // Given a file whose metadata has no version (as files written before versions were)
        let url = try await InvoiceFiles.version1(Self.invoices)
        defer { StoreFileState.cleanUp(url) }
        try SQLiteFile.execute("DELETE FROM _og_metadata WHERE key = 'modelVersion'", at: url)

        // When version 3 opens it with the plan
        let coordinator = try InvoiceFiles.open(url, with: InvoicesV3.model, plan: try InvoicesMigration.plan())

        // Then it migrated from version 1
        guard case .migrated(let report)? = coordinator.migrationOutcome else {
            Issue.record("expected a migration, got \(String(describing: coordinator.migrationOutcome))")
            return
        }
        #expect(report.fromVersion == 1)
        #expect(try await InvoiceFiles.version3Invoices(at: coordinator)["INV-1"]?.total == 10)
    }

    @Test func aChangeAStageCannotMakeIsRefusedWhenThePlanIsMade() {
        // When a lightweight stage would change an attribute from Int to String
        enum Original {
            final class Client: ManagedObject {
                @Attribute var name: String
                @Attribute var rating: Int = 0
            }
        }
        enum Retyped {
            final class Client: ManagedObject {
                @Attribute var name: String
                @Attribute var rating: String = ""
            }
        }
        let error = #expect(throws: MigrationPlanError.self) {
            _ = try MigrationPlan(models: [try ManagedObjectModel(entities: [Original.Client.self], version: 1),
                                           try ManagedObjectModel(entities: [Retyped.Client.self], version: 2)],
                                  stages: [.lightweight(from: 1, to: 2)])
        }

        // Then the plan names the difference and what to do instead
        guard case .unsupportedChanges(let stage, let differences)? = error else {
            Issue.record("expected unsupportedChanges, got \(String(describing: error))")
            return
        }
        #expect(stage == "1 → 2")
        #expect(differences.count == 1)
        #expect(differences.first?.contains("attribute Client.rating changes type from int to string") == true)
        #expect(differences.first?.contains("custom stage") == true)
    }
}
