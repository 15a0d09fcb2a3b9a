import Foundation
@testable import ObjectGraph

enum InvoiceStatus: String, AttributeValue, CaseIterable, Codable {
    case draft, sent, paid, cancelled
}

final class Client: ManagedObject {
    @Attribute(.required, .maxLength(120)) var name: String
    @Attribute(.unique, .pattern(#"[^@\s]+@[^@\s]+\.[^@\s]+"#)) var email: String?
    @Attribute(.indexed) var city: String?
    @Attribute var createdAt: Date = Date(timeIntervalSince1970: 1_700_000_000)
    @Attribute var isActive: Bool = true
    @Relationship(inverse: \Invoice.client, deleteRule: .cascade) var invoices: Set<Invoice>
    @Relationship(inverse: \Tag.clients) var tags: Set<Tag>

    override func validate() -> [ValidationFailure] {
        name == "Forbidden" ? [ValidationFailure(property: "name", message: "This name is not allowed.")] : []
    }
}

final class Invoice: ManagedObject {
    @Attribute(.required) var identifier: String
    @Attribute(.minimum(0)) var amount: Decimal = 0
    @Attribute var currency: String = "EUR"
    @Attribute var status: InvoiceStatus = .draft
    @Attribute var issueDate: Date = Date(timeIntervalSince1970: 1_700_000_000)
    @Attribute var notes: String?
    @Attribute var reference: UUID?
    @Attribute var attachment: Data?
    @Attribute var quantity: Int = 1
    @Attribute var weight: Double = 0
    @Attribute var sequence: Int64 = 0
    @Relationship(isRequired: true) var client: Client?

    override class var uniquenessConstraints: [[AnyKeyPath]] { [[\Invoice.identifier]] }
    override class var indexes: [[AnyKeyPath]] { [[\Invoice.status, \Invoice.issueDate]] }

    /// Computed, not stored: predicates over it cannot be translated to SQL.
    var isLarge: Bool { amount > 1000 }
    /// Computed from a stored string of the same type.
    var shoutedIdentifier: String { identifier.uppercased() }
    /// Reads the stored value unchanged: as good as the stored property.
    var sameIdentifier: String { identifier }
}

final class Tag: ManagedObject {
    @Attribute(.required) var label: String
    @Relationship var clients: Set<Client>
}

/// A project with an ordered list of tasks and a task that may not be deleted while it has
/// subtasks (deny).
final class Project: ManagedObject {
    @Attribute var title: String
    @Relationship(inverse: \TaskItem.project, deleteRule: .cascade) var tasks: [TaskItem]
}

final class TaskItem: ManagedObject {
    @Attribute var title: String
    @Relationship var project: Project?
    @Relationship(inverse: \TaskItem.parentTask, deleteRule: .deny) var subtasks: Set<TaskItem>
    @Relationship var parentTask: TaskItem?
}

/// A team needs between one and three members; a member's (first, last) name is unique.
final class Team: ManagedObject {
    @Attribute var title: String
    @Relationship(inverse: \Member.team, minCount: 1, maxCount: 3) var members: Set<Member>
}

final class Member: ManagedObject {
    @Attribute var first: String
    @Attribute var last: String
    @Relationship var team: Team?
    override class var uniquenessConstraints: [[AnyKeyPath]] { [[\Member.first, \Member.last]] }
}

enum TestStack {
    static let model: ManagedObjectModel = {
        do {
            return try ManagedObjectModel(entities: [Client.self, Invoice.self, Tag.self, Project.self, TaskItem.self,
                                                 Team.self, Member.self])
        } catch {
            fatalError("test model: \(error)")
        }
    }()

    static func temporaryDirectory() -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("og-tests-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static func fileURL() -> URL { temporaryDirectory().appendingPathComponent("store.sqlite") }

    static func coordinator(at url: URL? = nil) throws -> PersistentStoreCoordinator {
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addPersistentStore(.sqlite(at: url ?? fileURL()))
        return coordinator
    }

    static func inMemoryCoordinator() throws -> PersistentStoreCoordinator {
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addPersistentStore(.inMemory())
        return coordinator
    }
}
