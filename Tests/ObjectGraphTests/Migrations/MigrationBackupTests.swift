import Foundation
import ObjectGraph
import ObjectGraphFixtureModel
import Testing

/// Before a migration changes anything, it copies the file next to it, as a complete store
/// of the old version.
@Suite struct MigrationBackupTests {
    static let invoices: [InvoiceFiles.Invoice] = [
        .init(number: "INV-1", amount: Decimal(string: "19.99")!),
        .init(number: "INV-2", amount: 5),
    ]

    @Test func theBackupIsNamedAfterTheOldVersionAndOpensWithTheOldModel() async throws {
        // Given a version 1 file
        let url = try await InvoiceFiles.version1(Self.invoices)
        defer { StoreFileState.cleanUp(url) }

        // When version 3 migrates it
        let coordinator = try InvoiceFiles.open(url, with: InvoicesV3.model, plan: try InvoicesMigration.plan())

        // Then the report names the backup next to the file, which is a version 1 store
        // that version 1 opens with its invoices and amounts as they were
        let backup = URL(fileURLWithPath: url.path + ".v1-backup")
        guard case .migrated(let report)? = coordinator.migrationOutcome else {
            Issue.record("expected a migration, got \(String(describing: coordinator.migrationOutcome))")
            return
        }
        #expect(report.backup == backup)
        #expect(try PersistentStoreCoordinator.modelVersion(ofStoreAt: backup) == 1)
        #expect(!FileManager.default.fileExists(atPath: backup.path + ".partial"))
        let old = try InvoiceFiles.open(backup, with: InvoicesV1.model)
        let context = ManagedObjectContext(.privateQueue, coordinator: old)
        let invoices = try await context.perform {
            try context.fetch(FetchRequest<InvoicesV1.Invoice>(sortBy: [SortDescriptor(\.number)])).map { ($0.number, $0.amount) }
        }
        #expect(invoices.map(\.0) == ["INV-1", "INV-2"])
        #expect(invoices.map(\.1) == [Decimal(string: "19.99")!, 5])
        #expect(old.storeIdentifier == coordinator.storeIdentifier)
    }

    @Test func aLaterMigrationFromTheSameVersionReplacesTheBackup() async throws {
        // Given a stale backup named like the one a migration from version 1 makes
        let url = try await InvoiceFiles.version1(Self.invoices)
        defer { StoreFileState.cleanUp(url) }
        let backup = URL(fileURLWithPath: url.path + ".v1-backup")
        try Data("not a database".utf8).write(to: backup)

        // When version 3 migrates the file
        _ = try InvoiceFiles.open(url, with: InvoicesV3.model, plan: try InvoicesMigration.plan())

        // Then the backup is a copy of the file as it was just before
        #expect(try PersistentStoreCoordinator.modelVersion(ofStoreAt: backup) == 1)
    }

    @Test func noBackupIsMadeWhenTheDescriptionSaysSo() async throws {
        // Given a version 1 file and a description without backups
        let url = try await InvoiceFiles.version1(Self.invoices)
        defer { StoreFileState.cleanUp(url) }
        var description = PersistentStoreDescription.sqlite(at: url)
        description.migrationPlan = try InvoicesMigration.plan()
        description.backsUpBeforeMigrating = false

        // When version 3 migrates it
        let coordinator = PersistentStoreCoordinator(model: InvoicesV3.model)
        try coordinator.addPersistentStore(description)

        // Then it migrated, and left no copy
        guard case .migrated(let report)? = coordinator.migrationOutcome else {
            Issue.record("expected a migration, got \(String(describing: coordinator.migrationOutcome))")
            return
        }
        #expect(report.backup == nil)
        #expect(!FileManager.default.fileExists(atPath: url.path + ".v1-backup"))
    }

    @Test func aBackupThatCannotBeWrittenStopsTheMigrationBeforeItStarts() async throws {
        // Given a version 1 file, and a folder where the backup should be
        let url = try await InvoiceFiles.version1(Self.invoices)
        defer { StoreFileState.cleanUp(url) }
        let backup = url.path + ".v1-backup"
        try FileManager.default.createDirectory(atPath: backup + "/in-the-way", withIntermediateDirectories: true)
        let before = try Data(contentsOf: url)

        // When version 3 opens it
        let error = #expect(throws: MigrationError.self) {
            _ = try InvoiceFiles.open(url, with: InvoicesV3.model, plan: try InvoicesMigration.plan())
        }

        // Then the migration did not start, saying why; the file is untouched
        guard case .backupFailed(let path, _)? = error else {
            Issue.record("expected backupFailed, got \(String(describing: error))")
            return
        }
        #expect(path == backup)
        #expect(try Data(contentsOf: url) == before)
        #expect(try PersistentStoreCoordinator.modelVersion(ofStoreAt: url) == 1)
    }
}
