import CSQLite
import Foundation
import Testing
@testable import ObjectGraph

// A hand-made store for the predicate translation tests: plain classes standing in for managed
// objects, a PredicateSchema over their key paths, and SQLite tables holding the same objects
// the way the store writes them. Each test checks that SQL selects exactly the objects for
// which `predicate.evaluate(_:)` is true.

/// The fixture's model, in a namespace: the test target has model types of its own.
enum PredicateTestModel {
    /// CaseIterable, as ObjectGraph's enum attributes are: what lets `rawValue` be translated.
    enum InvoiceStatus: String, Codable, Sendable, CaseIterable { case draft, sent, paid, void }
    /// Not CaseIterable: `rawValue` cannot be told from another computed property.
    enum Priority: Int, Codable, Sendable { case low = 0, normal = 1, high = 2 }

    /// Identity equality, like managed objects: what `Set` members and `==` in predicates need.
    protocol Entity: AnyObject, Hashable {
        static var entityName: String { get }
        var pk: Int64 { get }
        /// What the tests list to name the object.
        var label: String { get }
    }

    final class Company: Entity {
        static let entityName = "Company"
        let pk: Int64
        var name: String
        init(pk: Int64, name: String) { self.pk = pk; self.name = name }
        var label: String { name }
    }

    final class Client: Entity {
        static let entityName = "Client"
        let pk: Int64
        var name: String
        var email: String?
        var isActive: Bool
        var company: Company?
        var invoices: Set<Invoice> = []
        init(pk: Int64, name: String, email: String?, isActive: Bool, company: Company?) {
            self.pk = pk; self.name = name; self.email = email; self.isActive = isActive; self.company = company
        }
        var label: String { name }
    }

    final class Tag: Entity {
        static let entityName = "Tag"
        let pk: Int64
        var name: String
        var invoices: Set<Invoice> = []
        init(pk: Int64, name: String) { self.pk = pk; self.name = name }
        var label: String { name }
    }

    final class Invoice: Entity {
        static let entityName = "Invoice"
        let pk: Int64
        var number: String
        var note: String?
        var amount: Decimal
        var discount: Decimal?
        var quantity: Int
        var weight: Double
        var rate: Double?
        var isPaid: Bool
        var isDisputed: Bool?
        var issued: Date
        var due: Date?
        var status: InvoiceStatus
        var priority: Priority
        var token: UUID
        var payload: Data
        var client: Client?
        var tags: Set<Tag> = []

        /// Not stored: the schema does not know it.
        var isLarge: Bool { amount > 1000 }

        init(pk: Int64, number: String, note: String?, amount: Decimal, discount: Decimal? = nil,
             quantity: Int, weight: Double, rate: Double? = nil, isPaid: Bool, isDisputed: Bool? = nil,
             issued: Date, due: Date? = nil, status: InvoiceStatus, priority: Priority = .normal,
             payload: Data = Data(), client: Client?, tags: [Tag] = []) {
            self.pk = pk; self.number = number; self.note = note; self.amount = amount
            self.discount = discount; self.quantity = quantity; self.weight = weight; self.rate = rate
            self.isPaid = isPaid; self.isDisputed = isDisputed; self.issued = issued; self.due = due
            self.status = status; self.priority = priority; self.payload = payload
            self.token = UUID(uuidString: String(format: "00000000-0000-4000-8000-%012d", pk)) ?? UUID()
            self.client = client
            client?.invoices.insert(self)
            self.tags = Set(tags)
            for tag in tags { tag.invoices.insert(self) }
        }
        var label: String { number }
    }

    /// The model as the store would map it: Client.invoices by Invoice's `client` column,
    /// Invoice.tags / Tag.invoices by a join table.
    struct Schema: PredicateSchema {
        static let joinTable = SQLSchema.quote("_join_Invoice.tags_Tag.invoices")

        private static func attribute(_ entity: String, _ name: String, _ type: AttributeType) -> ResolvedStep {
            ResolvedStep(entity: entity, table: SQLSchema.quote(entity), column: SQLSchema.quote(name), kind: .attribute(type))
        }

        // Built per schema: AnyKeyPath is not Sendable, so it cannot be a static constant.
        private let steps: [String: [AnyKeyPath: ResolvedStep]] = [
            "Company": [\Company.name: attribute("Company", "name", .string)],
            "Client": [
                \Client.name: attribute("Client", "name", .string),
                \Client.email: attribute("Client", "email", .string),
                \Client.isActive: attribute("Client", "isActive", .bool),
                \Client.company: ResolvedStep(entity: "Client", table: "\"Client\"", column: "\"company\"",
                                              kind: .toOne(destinationEntity: "Company")),
                \Client.invoices: ResolvedStep(entity: "Client", table: "\"Client\"", column: "\"invoices\"",
                                               kind: .toMany(destinationEntity: "Invoice", mapping:
                                                .inverseForeignKey(destinationTable: "\"Invoice\"", column: "\"client\""))),
            ],
            "Tag": [
                \Tag.name: attribute("Tag", "name", .string),
                \Tag.invoices: ResolvedStep(entity: "Tag", table: "\"Tag\"", column: "\"invoices\"",
                                            kind: .toMany(destinationEntity: "Invoice", mapping:
                                                .joinTable(table: joinTable, ownerColumn: "\"b\"", memberColumn: "\"a\""))),
            ],
            "Invoice": [
                \Invoice.number: attribute("Invoice", "number", .string),
                \Invoice.note: attribute("Invoice", "note", .string),
                \Invoice.amount: attribute("Invoice", "amount", .decimal),
                \Invoice.discount: attribute("Invoice", "discount", .decimal),
                \Invoice.quantity: attribute("Invoice", "quantity", .int),
                \Invoice.weight: attribute("Invoice", "weight", .double),
                \Invoice.rate: attribute("Invoice", "rate", .double),
                \Invoice.isPaid: attribute("Invoice", "isPaid", .bool),
                \Invoice.isDisputed: attribute("Invoice", "isDisputed", .bool),
                \Invoice.issued: attribute("Invoice", "issued", .date),
                \Invoice.due: attribute("Invoice", "due", .date),
                \Invoice.status: attribute("Invoice", "status", .string),
                \Invoice.priority: attribute("Invoice", "priority", .int),
                \Invoice.token: attribute("Invoice", "token", .uuid),
                \Invoice.payload: attribute("Invoice", "payload", .data),
                \Invoice.client: ResolvedStep(entity: "Invoice", table: "\"Invoice\"", column: "\"client\"",
                                              kind: .toOne(destinationEntity: "Client")),
                \Invoice.tags: ResolvedStep(entity: "Invoice", table: "\"Invoice\"", column: "\"tags\"",
                                            kind: .toMany(destinationEntity: "Tag", mapping:
                                                .joinTable(table: joinTable, ownerColumn: "\"a\"", memberColumn: "\"b\""))),
            ],
        ]

        func resolve(_ keyPath: AnyKeyPath, from entity: String) -> [ResolvedStep]? {
            steps[entity]?[keyPath].map { [$0] }
        }
    }

    /// A captured value with properties, as a search form's filter would be.
    struct Limits: Codable, Sendable {
        var minimum: Int
        var numbers: [String]
    }
}

extension PredicateTestModel.Entity {
    static func == (a: Self, b: Self) -> Bool { a === b }
    func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

/// A varied data set: NULLs, empty strings, unicode, negative numbers, equal decimals written
/// differently (10.5 / 10.50), dates, an object without relationships.
struct PredicateFixture {
    typealias Company = PredicateTestModel.Company
    typealias Client = PredicateTestModel.Client
    typealias Tag = PredicateTestModel.Tag
    typealias Invoice = PredicateTestModel.Invoice

    let database: PredicateTestDatabase
    let companies: [Company]
    let clients: [Client]
    let tags: [Tag]
    let invoices: [Invoice]

    static func day(_ text: String) -> Date {
        (try? Date(text + "T12:00:00Z", strategy: .iso8601)) ?? Date(timeIntervalSince1970: 0)
    }

    static func decimal(_ text: String) -> Decimal { Decimal(string: text) ?? 0 }

    init() throws {
        let acmeCorp = Company(pk: 1, name: "Acme Corporation"), initrode = Company(pk: 2, name: "Initrode")
        let acme = Client(pk: 1, name: "Acme", email: "billing@acme.test", isActive: true, company: acmeCorp)
        let globex = Client(pk: 2, name: "Globex", email: nil, isActive: false, company: nil)
        let initech = Client(pk: 3, name: "Initech", email: "", isActive: true, company: initrode)
        let umbrella = Client(pk: 4, name: "Umbrella", email: "ops@umbrella.test", isActive: true, company: nil)
        let urgent = Tag(pk: 1, name: "urgent"), archived = Tag(pk: 2, name: "archived"), unused = Tag(pk: 3, name: "unused")
        let d = Self.decimal, day = Self.day
        invoices = [
            Invoice(pk: 1, number: "INV-001", note: "Rush", amount: d("0.1"), discount: d("0.10"), quantity: 3,
                    weight: 1.5, isPaid: true, issued: day("2024-01-15"), due: day("2024-02-15"), status: .paid,
                    priority: .high, payload: Data([0xDE, 0xAD]), client: acme, tags: [urgent]),
            Invoice(pk: 2, number: "INV-002", note: nil, amount: d("10.5"), quantity: -2, weight: -0.5, rate: 0.2,
                    isPaid: false, isDisputed: true, issued: day("2024-03-01"), status: .draft, client: acme),
            Invoice(pk: 3, number: "INV-003", note: "", amount: d("10.50"), discount: d("-1"), quantity: 0, weight: 0,
                    rate: 1.0, isPaid: false, isDisputed: false, issued: day("2023-12-31"), due: day("2024-01-31"),
                    status: .sent, priority: .low, client: globex),
            Invoice(pk: 4, number: "inv-004", note: "Café crème", amount: d("-3.25"), quantity: 100, weight: 1e6,
                    isPaid: true, issued: day("2024-06-30"), status: .void, priority: .low,
                    payload: Data([0xDE]), client: nil),
            Invoice(pk: 5, number: "INV-005", note: "50% off_now", amount: d("9"), quantity: 7, weight: 2.25,
                    rate: -0.75, isPaid: false, issued: day("2024-02-29"), due: day("2024-03-29"), status: .sent,
                    priority: .high, client: initech, tags: [urgent, archived]),
            Invoice(pk: 6, number: "ÉCOLE-006", note: "日本語テキスト", amount: d("0"), quantity: 42, weight: 0.1,
                    isPaid: true, isDisputed: false, issued: day("2024-01-01"), status: .paid, client: initech),
            Invoice(pk: 7, number: "INV-007", note: "naïve 👍🏽 emoji", amount: d("1000000.01"), discount: d("0.5"),
                    quantity: 1, weight: 3.0, rate: 0.5, isPaid: false, issued: day("2025-01-01"), status: .draft,
                    payload: Data([0x00, 0xDE, 0xAD]), client: acme, tags: [archived]),
            Invoice(pk: 8, number: "X", note: "x", amount: d("100"), quantity: 5, weight: 10, isPaid: false,
                    isDisputed: true, issued: day("2024-03-01"), due: day("2024-03-01"), status: .sent, client: globex),
        ]
        companies = [acmeCorp, initrode]
        clients = [acme, globex, initech, umbrella]
        tags = [urgent, archived, unused]
        database = try PredicateTestDatabase()
        try store()
    }

    private func store() throws {
        try database.execute("""
            CREATE TABLE "Company" (_pk INTEGER PRIMARY KEY, "name" TEXT NOT NULL);
            CREATE TABLE "Client" (_pk INTEGER PRIMARY KEY, "name" TEXT NOT NULL, "email" TEXT,
                "isActive" INTEGER NOT NULL, "company" INTEGER);
            CREATE TABLE "Tag" (_pk INTEGER PRIMARY KEY, "name" TEXT NOT NULL);
            CREATE TABLE "Invoice" (_pk INTEGER PRIMARY KEY, "number" TEXT NOT NULL, "note" TEXT,
                "amount" TEXT NOT NULL, "discount" TEXT, "quantity" INTEGER NOT NULL, "weight" REAL NOT NULL,
                "rate" REAL, "isPaid" INTEGER NOT NULL, "isDisputed" INTEGER, "issued" REAL NOT NULL, "due" REAL,
                "status" TEXT NOT NULL, "priority" INTEGER NOT NULL, "token" TEXT NOT NULL,
                "payload" BLOB NOT NULL, "client" INTEGER);
            CREATE TABLE \(PredicateTestModel.Schema.joinTable) ("a" INTEGER NOT NULL, "b" INTEGER NOT NULL);
            """)
        for c in companies {
            try database.execute(#"INSERT INTO "Company" VALUES (?, ?)"#, [.int(c.pk), .string(c.name)])
        }
        for c in clients {
            try database.execute(#"INSERT INTO "Client" VALUES (?, ?, ?, ?, ?)"#, [
                .int(c.pk), .string(c.name), c.email.map(StoredValue.string) ?? .null, .bool(c.isActive),
                c.company.map { .int($0.pk) } ?? .null])
        }
        for t in tags {
            try database.execute(#"INSERT INTO "Tag" VALUES (?, ?)"#, [.int(t.pk), .string(t.name)])
        }
        for i in invoices {
            try database.execute(#"INSERT INTO "Invoice" VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"#, [
                .int(i.pk), .string(i.number), i.note.map(StoredValue.string) ?? .null, .decimal(i.amount),
                i.discount.map(StoredValue.decimal) ?? .null, .int(Int64(i.quantity)), .double(i.weight),
                i.rate.map(StoredValue.double) ?? .null, .bool(i.isPaid), i.isDisputed.map(StoredValue.bool) ?? .null,
                .date(i.issued), i.due.map(StoredValue.date) ?? .null, .string(i.status.rawValue),
                .int(Int64(i.priority.rawValue)), .uuid(i.token), .data(i.payload), i.client.map { .int($0.pk) } ?? .null])
            for t in i.tags {
                try database.execute("INSERT INTO \(PredicateTestModel.Schema.joinTable) VALUES (?, ?)", [.int(i.pk), .int(t.pk)])
            }
        }
    }

    /// The SQL condition for `predicate` over `Root`'s table.
    func translate<Root: PredicateTestModel.Entity>(_ predicate: Predicate<Root>) throws -> SQLFragment {
        try PredicateTranslator(schema: PredicateTestModel.Schema(), rootEntity: Root.entityName).translate(predicate)
    }

    /// The labels of the objects SQL selects and of those Swift's evaluation selects.
    func selections<Root: PredicateTestModel.Entity>(_ predicate: Predicate<Root>, in objects: [Root]) throws
        -> (sql: [String], swift: [String]) {
        let condition = try translate(predicate)
        let table = SQLSchema.quote(Root.entityName)
        let selected = try database.primaryKeys(
            "SELECT t0._pk FROM \(table) t0 WHERE \(condition.sql) ORDER BY t0._pk", condition.bindings)
        let evaluated = try objects.filter { try predicate.evaluate($0) }.map(\.pk).sorted()
        let byKey = Dictionary(uniqueKeysWithValues: objects.map { ($0.pk, $0.label) })
        return (selected.compactMap { byKey[$0] }, evaluated.compactMap { byKey[$0] })
    }

    /// The labels of the objects SQL selects, after checking that they are exactly those for
    /// which Swift's evaluation of the predicate is true.
    func labels<Root: PredicateTestModel.Entity>(_ predicate: Predicate<Root>, in objects: [Root],
                                  sourceLocation: SourceLocation = #_sourceLocation) throws -> [String] {
        let (selected, evaluated) = try selections(predicate, in: objects)
        let condition = try translate(predicate).sql
        #expect(selected == evaluated, "SQL and Swift disagree for: \(condition)",
                sourceLocation: sourceLocation)
        return selected
    }

    func invoices(_ predicate: Predicate<Invoice>, sourceLocation: SourceLocation = #_sourceLocation) throws -> [String] {
        try labels(predicate, in: invoices, sourceLocation: sourceLocation)
    }

    func clients(_ predicate: Predicate<Client>, sourceLocation: SourceLocation = #_sourceLocation) throws -> [String] {
        try labels(predicate, in: clients, sourceLocation: sourceLocation)
    }

    func tags(_ predicate: Predicate<Tag>, sourceLocation: SourceLocation = #_sourceLocation) throws -> [String] {
        try labels(predicate, in: tags, sourceLocation: sourceLocation)
    }
}

struct PredicateTestDatabaseError: Error, CustomStringConvertible {
    let description: String
}

/// An in-memory SQLite database binding values exactly as SQLiteConnection does.
final class PredicateTestDatabase {
    private var handle: OpaquePointer?

    init() throws {
        guard sqlite3_open(":memory:", &handle) == SQLITE_OK else {
            throw PredicateTestDatabaseError(description: "cannot open an in-memory database")
        }
    }

    deinit { sqlite3_close(handle) }

    func execute(_ sql: String, _ bindings: [StoredValue] = []) throws {
        if bindings.isEmpty {
            guard sqlite3_exec(handle, sql, nil, nil, nil) == SQLITE_OK else { throw error(sql) }
            return
        }
        _ = try rows(sql, bindings) { _ in () }
    }

    func primaryKeys(_ sql: String, _ bindings: [StoredValue]) throws -> [Int64] {
        try rows(sql, bindings) { sqlite3_column_int64($0, 0) }
    }

    private func rows<T>(_ sql: String, _ bindings: [StoredValue], _ read: (OpaquePointer?) -> T) throws -> [T] {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK else { throw error(sql) }
        defer { sqlite3_finalize(statement) }
        for (offset, value) in bindings.enumerated() { bind(value, at: Int32(offset + 1), in: statement) }
        var result: [T] = []
        while true {
            switch sqlite3_step(statement) {
            case SQLITE_ROW: result.append(read(statement))
            case SQLITE_DONE: return result
            default: throw error(sql)
            }
        }
    }

    private func bind(_ value: StoredValue, at index: Int32, in statement: OpaquePointer?) {
        switch value {
        case .null, .unloaded, .references: sqlite3_bind_null(statement, index)
        case .bool(let v): sqlite3_bind_int64(statement, index, v ? 1 : 0)
        case .int(let v): sqlite3_bind_int64(statement, index, v)
        case .double(let v): sqlite3_bind_double(statement, index, v)
        case .string(let v): sqlite3_bind_text(statement, index, v, Int32(v.utf8.count), csqlite_transient())
        case .date(let v): sqlite3_bind_double(statement, index, v.timeIntervalSince1970)
        case .decimal(let v): sqlite3_bind_text(statement, index, StoredValue.decimalText(v), -1, csqlite_transient())
        case .uuid(let v): sqlite3_bind_text(statement, index, v.uuidString, -1, csqlite_transient())
        case .data(let v) where v.isEmpty:
            // sqlite3_bind_blob with a nil pointer (what an empty Data gives) binds NULL.
            sqlite3_bind_zeroblob(statement, index, 0)
        case .data(let v):
            v.withUnsafeBytes { raw in
                _ = sqlite3_bind_blob(statement, index, raw.baseAddress, Int32(raw.count), csqlite_transient())
            }
        case .reference(let id):
            if let pk = id.primaryKey { sqlite3_bind_int64(statement, index, pk) } else { sqlite3_bind_null(statement, index) }
        }
    }

    private func error(_ sql: String) -> PredicateTestDatabaseError {
        PredicateTestDatabaseError(description: "\(String(cString: sqlite3_errmsg(handle))) in: \(sql)")
    }
}
