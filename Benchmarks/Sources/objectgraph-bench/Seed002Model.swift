import CSQLiteBench
import Foundation

/// Seed 002's model (the Invoices article): a Client with seven string attributes, an Invoice
/// with `amount: Double`, `currency`, `identifier` and `notes`, and the client ↔ invoices
/// relationship pair. The model of the first table.
enum Seed002: BenchModel {
    struct Client: BenchRecord {
        var pk: Int64
        var city, country, email, name, number, street, zip: String

        func add(to digest: inout Digest) {
            digest.addClient(pk: pk)
            Self.addAttributes(city: city, country: country, email: email, name: name, number: number,
                               street: street, zip: zip, to: &digest)
        }

        @inline(__always)
        static func addAttributes(city: String, country: String, email: String, name: String, number: String,
                                  street: String, zip: String, to digest: inout Digest) {
            digest.add(city); digest.add(country); digest.add(email); digest.add(name)
            digest.add(number); digest.add(street); digest.add(zip)
        }
    }

    struct Invoice: BenchInvoice {
        var pk: Int64
        var amount: Double
        var currency: String
        var identifier: String
        var notes: String?
        var client: Int64

        func add(to digest: inout Digest) {
            Self.add(pk: pk, amount: amount, currency: currency, identifier: identifier, notes: notes,
                     client: client, to: &digest)
        }

        @inline(__always)
        static func add(pk: Int64, amount: Double, currency: String, identifier: String, notes: String?,
                        client: Int64, to digest: inout Digest) {
            digest.addInvoice(pk: pk, client: client)
            digest.add(amount: amount)
            digest.add(currency)
            digest.add(identifier)
            digest.add(notes)
        }
    }

    /// Step 4: new notes and a new amount.
    struct Update: BenchUpdate {
        let notes: String
        let amount: Double
        init(round: Int) {
            notes = "Payment reminder sent (round \(round))"
            amount = Double(100 + round) + 0.25
        }
        func apply(to invoice: inout Invoice) {
            invoice.notes = notes
            invoice.amount = amount
        }
    }

    static let key = "seed002"
    static let title = "seed 002's model (7 strings; Double amount)"

    /// Raw SQLite and GRDB create these tables; ObjectGraph makes its own from the classes,
    /// with the same table and column names (plus its `_pk` and `_version`).
    static let createSQL = """
        CREATE TABLE Client (
            pk INTEGER PRIMARY KEY,
            city TEXT NOT NULL, country TEXT NOT NULL, email TEXT NOT NULL, name TEXT NOT NULL,
            number TEXT NOT NULL, street TEXT NOT NULL, zip TEXT NOT NULL
        );
        CREATE TABLE Invoice (
            pk INTEGER PRIMARY KEY,
            amount REAL NOT NULL,
            currency TEXT NOT NULL,
            identifier TEXT NOT NULL,
            notes TEXT,
            client INTEGER REFERENCES Client(pk)
        );
        CREATE INDEX Invoice_client ON Invoice(client);
        """

    @MainActor static var engines: [Engine<Seed002>] {
        [Engine(key: "raw", title: "raw SQLite", open: { try Seed002Raw(path: $0, create: $1) }),
         Engine(key: "grdb", title: "GRDB pool", open: { try Seed002GRDB(path: $0, create: $1) }),
         Engine(key: "og", title: "ObjectGraph", open: { try Seed002ObjectGraph(path: $0, create: $1) })]
    }

    /// On PostgreSQL (a database URL for a path): raw libpq (COPY, or with `insertsRows`
    /// prepared INSERTs), and ObjectGraph's `PostgreSQLStore`.
    @MainActor static func postgreSQLEngines(insertsRows: Bool) -> [Engine<Seed002>] {
        [Engine(key: "raw", title: "raw libpq", open: { try Seed002LibPQ(url: $0, create: $1, insertsRows: insertsRows) }),
         Engine(key: "og", title: "ObjectGraph", open: { url, _ in try Seed002ObjectGraph(postgreSQL: url) })]
    }

    private static let places = [
        ("Paris", "France", "750"), ("Lyon", "France", "690"), ("Berlin", "Germany", "101"),
        ("Munich", "Germany", "803"), ("Madrid", "Spain", "280"), ("Lisbon", "Portugal", "110"),
        ("New York", "USA", "100"), ("Austin", "USA", "787"), ("Tokyo", "Japan", "100"),
    ]
    private static let streets = ["Main Street", "Rue de la Paix", "Hauptstraße", "Calle Mayor", "Station Road"]
    private static let companies = ["Acme", "Globex", "Initech", "Umbrella", "Stark", "Wayne", "Tyrell", "Hooli"]
    private static let notes = [
        "Net 30.",
        "Paid by bank transfer; reference on the statement.",
        "Please quote the invoice identifier with your payment.",
    ]
    private static let currencies = ["EUR", "USD", "GBP", "JPY"]

    static func makeClients(count: Int, rng: inout SplitMix64) -> [Client] {
        (0..<count).map { index in
            let pk = Int64(index + 1)
            let (city, country, zip) = places[rng.below(places.count)]
            return Client(
                pk: pk, city: city, country: country, email: "billing\(pk)@client\(pk).example",
                name: "\(companies[rng.below(companies.count)]) \(pk)", number: String(format: "C-%06d", pk),
                street: "\(1 + rng.below(200)) \(streets[rng.below(streets.count)])",
                zip: zip + String(rng.below(100)))
        }
    }

    static func makeInvoices(count: Int, clients: [Client], rng: inout SplitMix64) -> [Invoice] {
        (0..<count).map { index in
            Invoice(
                pk: Int64(index + 1), amount: Double(1_000 + rng.below(5_000_000)) / 100,
                currency: currencies[rng.below(currencies.count)], identifier: String(format: "INV-%07d", index + 1),
                notes: rng.below(10) < 3 ? notes[rng.below(notes.count)] : nil,
                client: clients[rng.below(clients.count)].pk)
        }
    }

    static func checkSample(_ db: SQLiteConnection, _ dataset: Dataset<Seed002>) throws {
        let statement = try db.prepare("SELECT amount, currency, identifier, notes, client FROM Invoice WHERE rowid = ?")
        defer { sqlite3_finalize(statement) }
        for invoice in stride(from: 0, to: dataset.invoices.count, by: max(1, dataset.invoices.count / 500))
            .map({ dataset.invoices[$0] }) {
            sqlite3_bind_int64(statement, 1, invoice.pk)
            guard sqlite3_step(statement) == SQLITE_ROW else { throw HarnessError("invoice \(invoice.pk) missing") }
            let matches = sqlite3_column_double(statement, 0) == invoice.amount
                && columnText(statement, 1) == invoice.currency && columnText(statement, 2) == invoice.identifier
                && columnText(statement, 3) == invoice.notes && sqlite3_column_int64(statement, 4) == invoice.client
            sqlite3_reset(statement)
            if !matches { throw HarnessError("invoice \(invoice.pk) differs from the generated data") }
        }
    }
}
