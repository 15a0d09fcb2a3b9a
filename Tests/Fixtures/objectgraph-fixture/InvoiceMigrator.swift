import Foundation
import ObjectGraph
import ObjectGraphFixtureModel

/// Opens an invoices fixture file with version 3 and its migration plan, when told to: so
/// a test can have two processes open the same old file at the same moment.
///
///     (prints)  ready
///     go PAUSE  → migrated 1→3 line-items=N backup=PATH
///               | migrated-elsewhere 1→3 line-items=N
///               | up-to-date line-items=N
///               | error <message>
///
/// PAUSE is how long the custom stage waits before it starts (seconds): it holds the write
/// lock meanwhile, so the other process meets a migration under way.
enum InvoiceMigrator {
    static func run(path: String) -> Never {
        print("ready")
        fflush(nil)
        guard let line = readLine(), line.hasPrefix("go"), let pause = Double(line.dropFirst(2).trimmingCharacters(in: .whitespaces))
        else { exit(64) }
        print(migrate(path: path, pausing: pause))
        fflush(nil)
        exit(0)
    }

    private static func migrate(path: String, pausing pause: Double) -> String {
        do {
            var description = PersistentStoreDescription.sqlite(at: URL(fileURLWithPath: path), busyTimeout: 30)
            description.migrationPlan = try InvoicesMigration.plan(pausing: pause)
            let coordinator = PersistentStoreCoordinator(model: InvoicesV3.model)
            try coordinator.addPersistentStore(description)
            let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
            let lineItems = try context.performAndWait { try context.count(for: FetchRequest<InvoicesV3.LineItem>()) }
            switch coordinator.migrationOutcome {
            case .migrated(let report)?:
                return "migrated \(report.fromVersion)→\(report.toVersion) line-items=\(lineItems) backup=\(report.backup?.path ?? "none")"
            case .migratedElsewhere(let from, let to)?:
                return "migrated-elsewhere \(from)→\(to) line-items=\(lineItems)"
            case nil:
                return "up-to-date line-items=\(lineItems)"
            }
        } catch {
            return "error \(error)"
        }
    }
}
