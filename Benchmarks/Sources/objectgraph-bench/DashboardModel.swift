import CSQLiteBench
import Foundation

/// Invoice currency, stored as its raw value (TEXT).
enum Currency: String, CaseIterable, Sendable {
    case eur = "EUR", usd = "USD", jpy = "JPY"

    /// What `Digest.ordinals` adds (a switch: `allCases` would allocate per read).
    var ordinal: Int {
        switch self {
        case .eur: 1
        case .usd: 2
        case .jpy: 3
        }
    }
}

/// Invoice status, stored as its raw value (TEXT).
enum InvoiceStatus: String, CaseIterable, Sendable {
    case draft, sent, paid, cancelled

    var ordinal: Int {
        switch self {
        case .draft: 1
        case .sent: 2
        case .paid: 3
        case .cancelled: 4
        }
    }
}

/// The dashboard's model: the attributes that cost a decoder most (an exact Decimal amount
/// stored as TEXT, dates stored as REAL, enumerations stored as their raw TEXT).
enum Dashboard: BenchModel {
    struct Client: BenchRecord {
        var pk: Int64
        var name: String
        var email: String?
        var city: String?
        var country: String?
        var createdAt: Date

        func add(to digest: inout Digest) {
            Self.add(pk: pk, name: name, email: email, city: city, country: country, createdAt: createdAt, to: &digest)
        }

        @inline(__always)
        static func add(pk: Int64, name: String, email: String?, city: String?, country: String?, createdAt: Date,
                        to digest: inout Digest) {
            digest.addClient(pk: pk)
            digest.add(name); digest.add(email); digest.add(city); digest.add(country); digest.add(createdAt)
        }
    }

    struct Invoice: BenchInvoice {
        var pk: Int64
        var identifier: String
        /// Stored as TEXT (`description`, lossless), parsed back with `Decimal(string:)`.
        var amount: Decimal
        var currency: Currency
        var status: InvoiceStatus
        var issueDate: Date
        var dueDate: Date
        var notes: String?
        var client: Int64

        func add(to digest: inout Digest) {
            Self.add(pk: pk, identifier: identifier, amount: amount, currency: currency, status: status,
                     issueDate: issueDate, dueDate: dueDate, notes: notes, client: client, to: &digest)
        }

        @inline(__always)
        static func add(pk: Int64, identifier: String, amount: Decimal, currency: Currency, status: InvoiceStatus,
                        issueDate: Date, dueDate: Date, notes: String?, client: Int64, to digest: inout Digest) {
            digest.addInvoice(pk: pk, client: client)
            digest.add(identifier)
            digest.add(amount: amount)
            digest.ordinals += currency.ordinal + status.ordinal
            digest.add(issueDate); digest.add(dueDate)
            digest.add(notes)
        }
    }

    /// Step 4: new notes and a new due date.
    struct Update: BenchUpdate {
        let notes: String
        let dueDate: Date
        init(round: Int) {
            notes = "Payment reminder sent (round \(round))"
            dueDate = Date(timeIntervalSince1970: Double(1_700_000_000 + round * 86_400))
        }
        func apply(to invoice: inout Invoice) {
            invoice.notes = notes
            invoice.dueDate = dueDate
        }
    }

    static let key = "dashboard"
    static let title = "the dashboard's model (Decimal, dates, enums)"

    static let createSQL = """
        CREATE TABLE Client (
            pk INTEGER PRIMARY KEY,
            name TEXT NOT NULL,
            email TEXT UNIQUE,
            city TEXT,
            country TEXT,
            createdAt REAL
        );
        CREATE TABLE Invoice (
            pk INTEGER PRIMARY KEY,
            identifier TEXT NOT NULL UNIQUE,
            amount TEXT NOT NULL,
            currency TEXT NOT NULL,
            status TEXT NOT NULL,
            issueDate REAL,
            dueDate REAL,
            notes TEXT,
            client INTEGER REFERENCES Client(pk)
        );
        CREATE INDEX Invoice_client ON Invoice(client);
        """

    @MainActor static var engines: [Engine<Dashboard>] {
        [Engine(key: "raw", title: "raw SQLite", open: { try DashboardRaw(path: $0, create: $1) }),
         Engine(key: "grdb", title: "GRDB pool", open: { try DashboardGRDB(path: $0, create: $1) }),
         Engine(key: "og", title: "ObjectGraph", open: { try DashboardObjectGraph(path: $0, create: $1) })]
    }

    // Dates are whole seconds so `Digest` can sum them exactly.
    private static let epoch2020 = 1_577_836_800
    private static let day = 86_400
    private static let cities = [
        ("Paris", "France"), ("Lyon", "France"), ("Berlin", "Germany"), ("Munich", "Germany"),
        ("Madrid", "Spain"), ("Lisbon", "Portugal"), ("New York", "USA"), ("Austin", "USA"),
        ("Tokyo", "Japan"), ("Osaka", "Japan"), ("Montréal", "Canada"), ("Zürich", "Switzerland"),
    ]
    private static let companies = ["Acme", "Globex", "Initech", "Umbrella", "Stark", "Wayne", "Tyrell", "Hooli"]
    private static let notes = [
        "Net 30.",
        "Paid by bank transfer; reference on the statement.",
        "Please quote the invoice identifier with your payment.",
        "Discount of 5% applied for early payment, as agreed on the phone with the accounting team.",
    ]

    static func makeClients(count: Int, rng: inout SplitMix64) -> [Client] {
        (0..<count).map { index in
            let pk = Int64(index + 1)
            let (city, country) = cities[rng.below(cities.count)]
            // One client in ten has no email: NULL in a UNIQUE column.
            let email: String? = rng.below(10) == 0 ? nil : "billing\(pk)@client\(pk).example"
            return Client(pk: pk, name: "\(companies[rng.below(companies.count)]) \(pk)", email: email, city: city,
                          country: country,
                          createdAt: Date(timeIntervalSince1970: Double(epoch2020 + rng.below(3 * 365 * day))))
        }
    }

    static func makeInvoices(count: Int, clients: [Client], rng: inout SplitMix64) -> [Invoice] {
        (0..<count).map { index in
            let client = clients[rng.below(clients.count)]
            // 60% EUR, 30% USD, 10% JPY; yen have no minor unit.
            let roll = rng.below(10)
            let currency: Currency = roll < 6 ? .eur : roll < 9 ? .usd : .jpy
            let amount = currency == .jpy
                ? Decimal(100 + rng.below(5_000_000))
                : Decimal(sign: .plus, exponent: -2, significand: Decimal(1_000 + rng.below(5_000_000)))
            let issue = client.createdAt.timeIntervalSince1970 + Double(rng.below(700) * day)
            return Invoice(
                pk: Int64(index + 1), identifier: String(format: "INV-%07d", index + 1), amount: amount,
                currency: currency, status: InvoiceStatus.allCases[rng.below(InvoiceStatus.allCases.count)],
                issueDate: Date(timeIntervalSince1970: issue),
                dueDate: Date(timeIntervalSince1970: issue + Double(30 * day)),
                notes: rng.below(10) < 3 ? notes[rng.below(notes.count)] : nil, client: client.pk)
        }
    }

    static func checkSample(_ db: SQLiteConnection, _ dataset: Dataset<Dashboard>) throws {
        guard try db.scalarInt("""
            SELECT count(*) FROM Invoice
            WHERE typeof(amount) <> 'text' OR typeof(issueDate) <> 'real' OR typeof(dueDate) <> 'real'
            """) == 0 else { throw HarnessError("amount must be TEXT, dates REAL") }
        let statement = try db.prepare("""
            SELECT identifier, amount, currency, status, issueDate, dueDate, notes, client FROM Invoice WHERE rowid = ?
            """)
        defer { sqlite3_finalize(statement) }
        for invoice in stride(from: 0, to: dataset.invoices.count, by: max(1, dataset.invoices.count / 500))
            .map({ dataset.invoices[$0] }) {
            sqlite3_bind_int64(statement, 1, invoice.pk)
            guard sqlite3_step(statement) == SQLITE_ROW else { throw HarnessError("invoice \(invoice.pk) missing") }
            let matches = columnText(statement, 0) == invoice.identifier
                && Decimal(string: columnText(statement, 1) ?? "") == invoice.amount
                && columnText(statement, 2) == invoice.currency.rawValue
                && columnText(statement, 3) == invoice.status.rawValue
                && sqlite3_column_double(statement, 4) == invoice.issueDate.timeIntervalSince1970
                && sqlite3_column_double(statement, 5) == invoice.dueDate.timeIntervalSince1970
                && columnText(statement, 6) == invoice.notes
                && sqlite3_column_int64(statement, 7) == invoice.client
            sqlite3_reset(statement)
            if !matches { throw HarnessError("invoice \(invoice.pk) differs from the generated data") }
        }
    }
}
