import Foundation
import ObjectGraph

/// Realistic, deterministic demo data: clients in several countries with invoices in several
/// currencies, amounts respecting each currency's minor units, and statuses that follow the
/// dates (old invoices mostly paid, some sent and overdue, recent ones drafts or sent).
///
/// The same seed and `today` always give the same data. Dates are relative to `today`, so
/// a fresh database always has overdue invoices.
public struct DemoData: Sendable {
    /// A client to create. Values only.
    @dynamicMemberLookup
    public struct ClientRecord: Sendable, Hashable {
        public let name: String
        public let details: ClientDetails
        public let createdAt: Date

        public subscript<T>(dynamicMember keyPath: KeyPath<ClientDetails, T>) -> T { details[keyPath: keyPath] }
    }

    /// An invoice to create, with the index of its client in ``clients``.
    @dynamicMemberLookup
    public struct InvoiceRecord: Sendable, Hashable {
        public let clientIndex: Int
        /// Its amount is the total of ``lines``.
        public let fields: InvoiceFields
        /// One to four.
        public let lines: [LineFields]
        /// A paid invoice's payment of its total; on some sent ones, a first half.
        public let payments: [PaymentFields]

        public subscript<T>(dynamicMember keyPath: KeyPath<InvoiceFields, T>) -> T { fields[keyPath: keyPath] }
    }

    public let clients: [ClientRecord]
    public let invoices: [InvoiceRecord]

    /// The demo data of `invoices serve`: 200 clients, 2,000 invoices.
    public static func standard(today: CalendarDay = .today) -> DemoData {
        DemoData(seed: 2025, clientCount: 200, invoiceCount: 2_000, today: today)
    }

    /// Generates the data.
    public init(seed: UInt64, clientCount: Int, invoiceCount: Int, today: CalendarDay) {
        var random = SeededGenerator(seed: seed)
        clients = Self.makeClients(clientCount, today: today, using: &random)
        invoices = clients.isEmpty ? [] : Self.makeInvoices(invoiceCount, clients: clients, today: today, using: &random)
    }

    // MARK: Clients

    private static func makeClients(_ count: Int, today: CalendarDay,
                                    using random: inout SeededGenerator) -> [ClientRecord] {
        let countries = DemoDataCatalog.countries
        let totalWeight = countries.reduce(0) { $0 + $1.weight }
        var usedNames = Set<String>(), usedEmails = Set<String>()
        var clients: [ClientRecord] = []
        clients.reserveCapacity(count)
        for index in 0..<count {
            var pick = Int.random(in: 0..<totalWeight, using: &random)
            var country = countries[0]
            for candidate in countries {
                if pick < candidate.weight { country = candidate; break }
                pick -= candidate.weight
            }
            let first = country.firstNames.randomElement(using: &random) ?? "Alex"
            let surname = country.surnames.randomElement(using: &random) ?? "Doe"
            let isCompany = Int.random(in: 0..<100, using: &random) < 80
            var name: String
            if isCompany {
                let trade = country.trades.randomElement(using: &random) ?? "Services"
                let form = country.companyForms.randomElement(using: &random) ?? ""
                name = "\(surname) \(trade) \(form)"
            } else {
                name = "\(first) \(surname)"
            }
            if usedNames.contains(name) { name += " (\(index + 1))" }
            usedNames.insert(name)

            var email: String?
            if Int.random(in: 0..<100, using: &random) >= 10 {
                let local = isCompany ? ["billing", "accounts", "invoices", "contact"].randomElement(using: &random) ?? "billing"
                    : slug(first, separator: ".") + "." + slug(surname, separator: "")
                let host = isCompany ? slug(name.replacingOccurrences(of: " (\(index + 1))", with: ""), separator: "-")
                    : ["mail", "post", "inbox"].randomElement(using: &random) ?? "mail"
                var candidate = "\(local)@\(host).\(country.domain)"
                var n = 2
                while usedEmails.contains(candidate) {
                    candidate = "\(local)\(n)@\(host).\(country.domain)"
                    n += 1
                }
                usedEmails.insert(candidate)
                email = candidate
            }
            let (zip, city) = country.cities.randomElement(using: &random) ?? ("", "")
            let street = country.streetPattern
                .replacingOccurrences(of: "@", with: country.streets.randomElement(using: &random) ?? "")
                .replacingOccurrences(of: "#", with: String(Int.random(in: 1...180, using: &random)))
            let createdDay = today.adding(days: -Int.random(in: 560...900, using: &random))
            let createdAt = createdDay.date.addingTimeInterval(TimeInterval(Int.random(in: 8 * 3600...18 * 3600, using: &random)))
            let details = ClientDetails(email: email, number: "C-" + pad(index + 1, 4), street: street, zip: zip,
                                        city: city, country: country.name)
            clients.append(ClientRecord(name: name, details: details, createdAt: createdAt))
        }
        return clients
    }

    // MARK: Invoices

    /// An invoice being generated.
    private struct Draft {
        var clientIndex: Int, lines: [LineFields], currency: String, status: InvoiceStatus
        var issue: CalendarDay, due: CalendarDay, notes: String?
    }

    private static func makeInvoices(_ count: Int, clients: [ClientRecord], today: CalendarDay,
                                     using random: inout SeededGenerator) -> [InvoiceRecord] {
        // Some clients are much busier than others.
        let weights = clients.map { _ in Int.random(in: 1...10, using: &random) }
        let totalWeight = weights.reduce(0, +)
        let homeCurrency = Dictionary(uniqueKeysWithValues: DemoDataCatalog.countries.map { ($0.name, $0.currency) })

        var drafts: [Draft] = []
        drafts.reserveCapacity(count)
        for n in 0..<count {
            // Every client gets at least one invoice while there are enough.
            var clientIndex = n
            if n >= clients.count {
                var pick = Int.random(in: 0..<totalWeight, using: &random)
                clientIndex = 0
                for (i, w) in weights.enumerated() {
                    if pick < w { clientIndex = i; break }
                    pick -= w
                }
            }
            let client = clients[clientIndex]
            var currency = client.country.flatMap { homeCurrency[$0] } ?? "EUR"
            if Int.random(in: 0..<100, using: &random) < 12 {
                currency = DemoDataCatalog.foreignCurrencies.filter { $0 != currency }.randomElement(using: &random) ?? currency
            }
            let issue = today.adding(days: -Int.random(in: 0...540, using: &random))
            let due = issue.adding(days: DemoDataCatalog.terms.randomElement(using: &random) ?? 30)
            let age = issue.days(until: today)
            let roll = Int.random(in: 0..<100, using: &random)
            let status: InvoiceStatus
            if age < 10 {
                status = roll < 40 ? .draft : .sent
            } else if due >= today {
                status = roll < 70 ? .sent : roll < 95 ? .paid : .cancelled
            } else {
                status = roll < 80 ? .paid : roll < 93 ? .sent : .cancelled
            }
            let notes = Int.random(in: 0..<100, using: &random) < 20
                ? DemoDataCatalog.notes.randomElement(using: &random) : nil
            drafts.append(Draft(clientIndex: clientIndex, lines: lines(in: currency, using: &random),
                                currency: currency, status: status, issue: issue, due: due, notes: notes))
        }
        // Numbered in order of issue, per year, as the dashboard would have when each was
        // sent; drafts have no number yet.
        let order = drafts.indices.sorted { (drafts[$0].issue, $0) < (drafts[$1].issue, $1) }
        var sequence: [Int: Int] = [:]
        var identifiers = [String?](repeating: nil, count: drafts.count)
        for i in order where drafts[i].status != .draft {
            let year = drafts[i].issue.year
            let next = (sequence[year] ?? 0) + 1
            sequence[year] = next
            identifiers[i] = InvoiceNumberFormat.standard.number(year: year, sequence: next)
        }
        return drafts.indices.map { i in
            let d = drafts[i]
            let amount = d.lines.reduce(Decimal(0)) { $0 + $1.total(in: d.currency) }
            return InvoiceRecord(clientIndex: d.clientIndex,
                                 fields: InvoiceFields(identifier: identifiers[i], amount: amount, currency: d.currency,
                                                       status: d.status, issueDate: d.issue, dueDate: d.due, notes: d.notes),
                                 lines: d.lines, payments: payments(of: d, index: i, amount: amount, today: today))
        }
    }

    /// A paid invoice's payment of its total, some days after it was issued; on one sent
    /// invoice in five, a first half. From the index alone, so the rest of the data stays as
    /// the seed makes it.
    private static func payments(of draft: Draft, index: Int, amount: Decimal, today: CalendarDay) -> [PaymentFields] {
        let methods = ["Bank transfer", "Card", "Bank transfer", "PayPal"]
        let day = min(draft.issue.adding(days: 3 + index % 25), today)
        switch draft.status {
        case .paid where amount > 0:
            return [PaymentFields(date: day, amount: amount, method: methods[index % methods.count])]
        case .sent where index % 5 == 0 && amount >= 10:
            guard let currency = Currency.named(draft.currency) else { return [] }
            let half = currency.rounded(amount / 2)
            return half < amount ? [PaymentFields(date: day, amount: half, method: methods[index % methods.count],
                                                  note: "First half")] : []
        default:
            return []
        }
    }

    /// One to four lines of services, each a share of a plausible amount, with the tax rate
    /// usual for the currency's country.
    private static func lines(in currency: String, using random: inout SeededGenerator) -> [LineFields] {
        let count = Int.random(in: 1...4, using: &random)
        let rate = DemoDataCatalog.taxRates[currency] ?? 0
        let services = DemoDataCatalog.services.shuffled(using: &random)
        let currencyInfo = Currency.named(currency)
        return (0..<count).map { index in
            let quantity = DemoDataCatalog.quantities.randomElement(using: &random) ?? 1
            let share = amount(in: currency, using: &random) / Decimal(count) / quantity
            let price = currencyInfo?.rounded(share) ?? share
            return LineFields(description: services[index % services.count], quantity: quantity,
                              unitPrice: max(price, 1), taxRate: rate)
        }
    }

    /// A plausible amount: log-uniform between a small and a large invoice of the currency,
    /// a third of them round, always with the currency's minor units.
    private static func amount(in currency: String, using random: inout SeededGenerator) -> Decimal {
        let digits = Currency.named(currency)?.minorUnits ?? 2
        // In major units: JPY invoices are larger numbers than EUR ones.
        let (low, high): (Double, Double) = currency == "JPY" ? (8_000, 2_500_000) : (80, 15_000)
        let major = exp(Double.random(in: log(low)...log(high), using: &random))
        let scale = pow(10, Double(digits))
        var units = Int64((major * scale).rounded())
        if Int.random(in: 0..<3, using: &random) == 0 {
            let step = Int64(scale) * (currency == "JPY" ? 1_000 : 10)
            units = max(step, units / step * step)
        }
        return Decimal(sign: .plus, exponent: -digits, significand: Decimal(units))
    }

    // MARK: Text helpers

    private static func pad(_ n: Int, _ width: Int) -> String {
        let s = String(n)
        return String(repeating: "0", count: max(0, width - s.count)) + s
    }

    /// "Müller Logistik GmbH" → "muller-logistik-gmbh": ASCII letters and digits only.
    static func slug(_ text: String, separator: String) -> String {
        let folded = text.folding(options: [.diacriticInsensitive, .caseInsensitive], locale: Locale(identifier: "en_US_POSIX"))
        var words: [String] = []
        var current = ""
        for scalar in folded.unicodeScalars {
            if scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar)) {
                current.unicodeScalars.append(scalar)
            } else if !current.isEmpty {
                words.append(current)
                current = ""
            }
        }
        if !current.isEmpty { words.append(current) }
        return words.joined(separator: separator).lowercased()
    }
}
