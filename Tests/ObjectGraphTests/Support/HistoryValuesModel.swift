import Foundation
import CSQLite
@testable import ObjectGraph

enum PaymentStatus: String, AttributeValue, CaseIterable {
    case open, paid, void
}

/// Records one attribute's values; `notes` is not declared and must never be recorded;
/// `email` is kept in tombstones only (the tombstone table's path).
final class Customer: ManagedObject {
    @Attribute(.recordsValuesInHistory) var name: String
    @Attribute var notes: String?
    @Attribute(.preservedInHistoryOnDeletion) var email: String?
    @Relationship(inverse: \Bill.customer, deleteRule: .cascade) var bills: Set<Bill>
}

/// Records every attribute and to-one relationship (the entity-wide switch); `memo` is also
/// kept in tombstones, so its delete value must be stored once.
final class Bill: ManagedObject {
    override class var recordsValuesInHistory: Bool { true }
    @Attribute var number: String
    @Attribute var amount: Decimal = 0
    @Attribute var status: PaymentStatus = .open
    @Attribute var dueDate: Date = Date(timeIntervalSince1970: 1_700_000_000)
    @Attribute var reference: UUID?
    @Attribute var scan: Data?
    @Attribute(.preservedInHistoryOnDeletion) var memo: String?
    @Relationship var customer: Customer?
    @Relationship var approver: Clerk?
}

/// Deleting a clerk nullifies `Bill.approver`, which records its values.
final class Clerk: ManagedObject {
    @Attribute var name: String
    @Relationship(inverse: \Bill.approver) var approved: Set<Bill>
}

enum HistoryValuesStack {
    static let model: ManagedObjectModel = {
        do { return try ManagedObjectModel(entities: [Customer.self, Bill.self, Clerk.self]) } catch {
            fatalError("history values model: \(error)")
        }
    }()

    static func coordinator(at url: URL) throws -> PersistentStoreCoordinator {
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addPersistentStore(.sqlite(at: url, recordsHistory: true))
        return coordinator
    }

    static func coordinator(_ location: StoreLocation) throws -> PersistentStoreCoordinator {
        try location.coordinator(model: model, recordsHistory: true)
    }

    static func context(_ coordinator: PersistentStoreCoordinator, author: String? = nil,
                        name: String? = nil) -> ManagedObjectContext {
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator, name: name)
        context.transactionAuthor = author
        return context
    }
}

/// SQL straight on a store's file, through a connection of its own: what the tests read
/// from (or write into) the history tables behind the API's back.
struct StoreFileSQL {
    let connection: SQLiteConnection

    init(_ url: URL) throws {
        connection = try SQLiteConnection(path: url.path, readOnly: false, create: false, busyTimeout: 5)
    }

    /// The first column of the first row, as an integer (0 when there is no row).
    func integer(_ sql: String, _ bindings: [StoredValue] = []) throws -> Int64 {
        let statement = try connection.statement(sql)
        defer { statement.reset() }
        statement.bind(bindings)
        return try statement.step() ? statement.int(at: 0) : 0
    }

    /// Every row's columns as text.
    func rows(_ sql: String, _ bindings: [StoredValue] = []) throws -> [[String]] {
        let statement = try connection.statement(sql)
        defer { statement.reset() }
        statement.bind(bindings)
        var rows: [[String]] = []
        while try statement.step() {
            rows.append((0..<sqlite3_column_count(statement.handle)).map { statement.string(at: $0) ?? "NULL" })
        }
        return rows
    }

    func execute(_ sql: String) throws { try connection.execute(sql) }
}
