import Foundation
import ObjectGraph
@testable import InvoicesApp

/// A fixed "today" so overdue invoices are the same on every run.
let today = CalendarDay(year: 2025, month: 6, day: 15)!

func day(_ text: String) -> CalendarDay {
    guard let day = CalendarDay(iso: text) else { preconditionFailure("bad test date \(text)") }
    return day
}

func decimal(_ text: String) -> Decimal {
    guard let value = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) else { preconditionFailure(text) }
    return value
}

enum TestFiles {
    /// A new empty folder under the system's temporary folder.
    static func folder() -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("invoices-tests-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static func database() -> URL { folder().appendingPathComponent("invoices.sqlite") }
}

/// A stack on a new SQLite file.
func makeStack() throws -> InvoicesStack {
    try InvoicesStack(storeURL: TestFiles.database())
}

/// A stack on a new store of the kind `store` names.
func makeStack(_ store: StackStore) async throws -> InvoicesStack {
    try await store.makeStack()
}

/// Runs `build` in a new import context and saves: how tests put rows in the file.
func insert(into stack: InvoicesStack, _ build: @escaping @Sendable (ManagedObjectContext) throws -> Void) async throws {
    let context = stack.newImportContext(name: "test data")
    try await context.perform {
        try build(context)
        try context.save()
    }
}

/// Saves what `build` makes in a fresh context and returns the validation failures the save
/// reports (empty when it saves).
func validationFailures(_ build: @escaping @Sendable (ManagedObjectContext) -> Void) async throws -> [ValidationFailure] {
    let stack = try makeStack()
    let context = stack.newImportContext()
    return await context.perform { () -> [ValidationFailure] in
        build(context)
        do {
            try context.save()
            return []
        } catch SaveError.validationFailed(let failures) {
            return failures
        } catch {
            return [ValidationFailure(property: nil, message: "unexpected: \(error)")]
        }
    }
}

extension ManagedObjectContext {
    /// A client with a name (and the other fields given), for fixtures.
    @discardableResult
    func makeClient(_ name: String, email: String? = nil, number: String? = nil, city: String? = nil,
                    country: String? = nil, createdAt: Date = Date(timeIntervalSince1970: 1_700_000_000)) -> Client {
        let client = Client(context: self)
        client.name = name
        client.email = email
        client.number = number
        client.city = city
        client.country = country
        client.createdAt = createdAt
        return client
    }

    /// An invoice for fixtures: its amount is its one line, or, with `asLine` false, set alone
    /// (to check the amount's own rules).
    @discardableResult
    func makeInvoice(_ identifier: String, client: Client?, amount: String = "100", currency: String = "EUR",
                     status: InvoiceStatus = .draft, issued: String = "2025-06-01", due: String = "2025-07-01",
                     notes: String? = nil, asLine: Bool = true) -> Invoice {
        let invoice = Invoice(context: self)
        invoice.identifier = identifier
        invoice.client = client
        invoice.currency = currency
        invoice.status = status
        invoice.issueDay = day(issued)
        invoice.dueDay = day(due)
        invoice.notes = notes
        if asLine { invoice.setSingleLine(amount: decimal(amount)) } else { invoice.amount = decimal(amount) }
        return invoice
    }
}

/// Six clients and eleven invoices with known values (today is 2025-06-15):
///
/// | invoice | client | amount | status | issued | due | |
/// |---|---|---|---|---|---|---|
/// | A-1 | Acme GmbH | 100.00 EUR | sent | 05-01 | 05-31 | overdue |
/// | A-2 | Acme GmbH | 250.50 EUR | paid | 04-01 | 05-01 | |
/// | A-3 | Acme GmbH | 80.00 USD | sent | 06-01 | 07-01 | |
/// | A-4 | Acme GmbH | 10.00 EUR | draft | 06-10 | 07-10 | |
/// | A-5 | Acme GmbH | 999.99 EUR | cancelled | 03-01 | 03-31 | |
/// | G-1 | Globex Ltd | 1200.00 GBP | sent | 05-20 | 06-14 | overdue |
/// | G-2 | Globex Ltd | 300.00 GBP | sent | 06-01 | 06-15 | due today |
/// | I-1 | Initech K.K. | 150000 JPY | sent | 04-15 | 05-15 | overdue, "Rush order" |
/// | I-2 | Initech K.K. | 98000 JPY | paid | 02-01 | 03-01 | |
/// | U-1 | Umbrella SA | 500.00 CHF | draft | 06-12 | 07-12 | |
/// | L-1 | Acme Labs Inc. | 75.25 USD | paid | 01-10 | 02-10 | "Includes travel" |
///
/// Zed Design has no invoice.
func makeFixtureStack(_ store: StackStore = .sqlite) async throws -> InvoicesStack {
    let stack = try await makeStack(store)
    try await insert(into: stack) { c in
        let base = Date(timeIntervalSince1970: 1_700_000_000)
        let acme = c.makeClient("Acme GmbH", email: "acme@example.de", number: "C-001", city: "Berlin", country: "Germany",
                                createdAt: base.addingTimeInterval(500))
        let labs = c.makeClient("Acme Labs Inc.", email: "labs@acme.example.com", number: "C-002", city: "Austin",
                                country: "United States", createdAt: base.addingTimeInterval(100))
        let globex = c.makeClient("Globex Ltd", email: "billing@globex.co.uk", number: "C-003", city: "London",
                                  country: "United Kingdom", createdAt: base.addingTimeInterval(300))
        let initech = c.makeClient("Initech K.K.", number: "C-004", city: "Tokyo", country: "Japan",
                                   createdAt: base.addingTimeInterval(200))
        let umbrella = c.makeClient("Umbrella SA", email: "umbrella@example.ch", number: "C-010", city: "Genève",
                                    country: "Switzerland", createdAt: base.addingTimeInterval(400))
        c.makeClient("Zed Design", email: "zed@zed.fr", number: "Z-99", city: "Paris", country: "France",
                     createdAt: base.addingTimeInterval(600))
        c.makeInvoice("A-1", client: acme, amount: "100.00", status: .sent, issued: "2025-05-01", due: "2025-05-31")
        c.makeInvoice("A-2", client: acme, amount: "250.50", status: .paid, issued: "2025-04-01", due: "2025-05-01")
        c.makeInvoice("A-3", client: acme, amount: "80.00", currency: "USD", status: .sent, issued: "2025-06-01", due: "2025-07-01")
        c.makeInvoice("A-4", client: acme, amount: "10.00", status: .draft, issued: "2025-06-10", due: "2025-07-10")
        c.makeInvoice("A-5", client: acme, amount: "999.99", status: .cancelled, issued: "2025-03-01", due: "2025-03-31")
        c.makeInvoice("G-1", client: globex, amount: "1200.00", currency: "GBP", status: .sent, issued: "2025-05-20", due: "2025-06-14")
        c.makeInvoice("G-2", client: globex, amount: "300.00", currency: "GBP", status: .sent, issued: "2025-06-01", due: "2025-06-15")
        c.makeInvoice("I-1", client: initech, amount: "150000", currency: "JPY", status: .sent, issued: "2025-04-15",
                      due: "2025-05-15", notes: "Rush order")
        c.makeInvoice("I-2", client: initech, amount: "98000", currency: "JPY", status: .paid, issued: "2025-02-01", due: "2025-03-01")
        c.makeInvoice("U-1", client: umbrella, amount: "500.00", currency: "CHF", status: .draft, issued: "2025-06-12", due: "2025-07-12")
        c.makeInvoice("L-1", client: labs, amount: "75.25", currency: "USD", status: .paid, issued: "2025-01-10",
                      due: "2025-02-10", notes: "Includes travel")
    }
    return stack
}

/// The primary key of the client with this name.
func clientID(_ name: String, in stack: InvoicesStack) async throws -> Int64 {
    let main = stack.main
    return try await main.perform { () throws -> Int64 in
        let found = try main.fetch(FetchRequest<Client>(predicate: #Predicate { $0.name == name }))
        return found.first?.objectID.primaryKey ?? -1
    }
}
