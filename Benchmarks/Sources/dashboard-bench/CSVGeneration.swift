import Foundation

/// Writes `rows` invoices over `clients` clients in the export's shape (a row per line item
/// and per payment): identifiers `PREFIX-000001`… (none for drafts, which are numbered when
/// sent), one to five lines each (three on average) with the tax rate of the currency's
/// country, a payment of the whole total on paid invoices and of half of it on one sent
/// invoice in four. Clients `Bench Client N` / `client-N@bench.example` are the same in every
/// file, so a second file's rows attach to the clients the first one created. Deterministic.
/// - Returns: the number of rows written (without the header).
@discardableResult
func writeCSV(to url: URL, rows: Int, clients: Int, prefix: String, seed: UInt64) throws -> Int {
    var generator = BenchGenerator(seed: seed)
    var text = "invoice,record,identifier,status,currency,issue_date,due_date,notes,client_name,client_email,client_city,"
        + "client_country,line_description,line_quantity,line_unit_price,line_tax_rate,payment_date,payment_amount\n"
    text.reserveCapacity(rows * 560)
    var written = 0
    for row in 1...rows {
        let invoice = generator.invoice(row, clients: clients, prefix: prefix)
        let head = "\(invoice.key),%@,\(invoice.identifier),\(invoice.status),\(invoice.currency.code),\(invoice.issue),,"
            + "\(invoice.notes),Bench Client \(invoice.client),client-\(invoice.client)@bench.example,\(invoice.city),\(invoice.country),"
        for line in invoice.lines {
            text += head.replacingOccurrences(of: "%@", with: "line")
                + "\(line.description),\(line.quantity),\(invoice.currency.plain(line.priceUnits)),\(invoice.currency.taxRate),,\n"
            written += 1
        }
        if let paid = invoice.paidUnits {
            text += head.replacingOccurrences(of: "%@", with: "payment") + ",,,,\(invoice.issue),\(invoice.currency.plain(paid))\n"
            written += 1
        }
    }
    try text.write(to: url, atomically: true, encoding: .utf8)
    return written
}

/// A currency of the generated files: its code, minor-unit digits and its country's tax rate.
struct BenchCurrency {
    let code: String
    let digits: Int
    let taxRate: Int

    /// An amount in minor units as the file writes it ("1234.50", or "1200" for JPY).
    func plain(_ units: Int) -> String {
        digits == 0 ? String(units) : "\(units / 100).\(String(format: "%02d", units % 100))"
    }

    /// A line's total in minor units, rounded as `LineItem` rounds (half away from zero).
    func total(quantity: Int, priceUnits: Int) -> Int {
        let net = quantity * priceUnits
        return net + (net * taxRate + 50) / 100
    }
}

/// The generated values, from a linear congruential generator (the same files every run).
struct BenchGenerator {
    struct Line { let description: String; let quantity: Int; let priceUnits: Int }
    struct Invoice {
        let key: String, identifier: String, status: String, currency: BenchCurrency, issue: String, notes: String
        let client: Int, city: String, country: String
        let lines: [Line]
        let paidUnits: Int?
    }

    private var state: UInt64
    private static let cities = [("Berlin", "Germany"), ("Lyon", "France"), ("Osaka", "Japan"), ("Boston", "United States"),
                                 ("Zürich", "Switzerland"), ("Leeds", "United Kingdom"), ("Porto", "Portugal"), ("Graz", "Austria")]
    private static let currencies = [BenchCurrency(code: "EUR", digits: 2, taxRate: 19), BenchCurrency(code: "EUR", digits: 2, taxRate: 19),
                                     BenchCurrency(code: "EUR", digits: 2, taxRate: 19), BenchCurrency(code: "USD", digits: 2, taxRate: 0),
                                     BenchCurrency(code: "USD", digits: 2, taxRate: 0), BenchCurrency(code: "JPY", digits: 0, taxRate: 10),
                                     BenchCurrency(code: "GBP", digits: 2, taxRate: 20), BenchCurrency(code: "CHF", digits: 2, taxRate: 8)]
    private static let statuses = ["draft", "sent", "sent", "sent", "paid", "paid", "paid", "paid", "cancelled"]
    private static let services = ["Design", "Development", "Hosting", "Support", "Consulting", "Training", "Audit"]

    init(seed: UInt64) { state = seed }

    private mutating func next(_ bound: Int) -> Int {
        state = state &* 6364136223846793005 &+ 1442695040888963407
        return Int((state >> 33) % UInt64(bound))
    }

    mutating func invoice(_ row: Int, clients: Int, prefix: String) -> Invoice {
        let client = next(clients) + 1
        let (city, country) = Self.cities[client % Self.cities.count]
        let currency = Self.currencies[next(Self.currencies.count)]
        let status = Self.statuses[next(Self.statuses.count)]
        let issue = String(format: "%04d-%02d-%02d", 2024 + next(2), next(12) + 1, next(28) + 1)
        let notes = row % 7 == 0 ? "\"Phase \(row % 5 + 1), design and build\"" : (row % 3 == 0 ? "Monthly retainer" : "")
        let lines = (0...next(5)).map { _ in
            let units = next(100_000) + 100
            return Line(description: Self.services[next(Self.services.count)], quantity: next(10) + 1,
                        priceUnits: currency.digits == 0 ? units / 10 + 1 : units)
        }
        let total = lines.reduce(0) { $0 + currency.total(quantity: $1.quantity, priceUnits: $1.priceUnits) }
        let paid = status == "paid" ? total : (status == "sent" && row % 4 == 0 ? total / 2 : nil)
        let key = "\(prefix)-\(String(format: "%06d", row))"
        return Invoice(key: key, identifier: status == "draft" ? "" : key, status: status, currency: currency, issue: issue,
                       notes: notes, client: client, city: city, country: country, lines: lines, paidUnits: paid == 0 ? nil : paid)
    }
}
