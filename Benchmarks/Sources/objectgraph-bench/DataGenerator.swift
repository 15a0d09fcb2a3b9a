import Foundation

/// SplitMix64: tiny, fast, and fully specified, so the same seed gives the same
/// data on every machine and Swift version (unlike SystemRandomNumberGenerator).
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    /// Uniform in 0..<bound without Swift's stdlib algorithm, whose exact use of
    /// the generator is not a documented contract.
    mutating func below(_ bound: Int) -> Int {
        Int(next() % UInt64(bound))
    }
}

/// Sizes of the workload. `standard` is the issue's contract; `quick` is a tenth
/// of it, for checking the harness itself.
struct Sizes: Sendable, Codable {
    var clients = 10_000
    var invoices = 100_000
    var lookups = 10_000          // step 3
    var updates = 10_000          // step 4
    var relationshipClients = 1_000  // step 5

    static let standard = Sizes()
    static let quick = Sizes(clients: 1_000, invoices: 10_000, lookups: 1_000, updates: 1_000, relationshipClients: 100)
}

/// Everything every implementation works on, generated once per process so all
/// columns do exactly the same work.
struct Dataset: Sendable {
    let sizes: Sizes
    let clients: [ClientData]
    let invoices: [InvoiceData]
    /// Step 3: distinct invoice pks, in random order.
    let lookupIDs: [Int64]
    /// Step 4: distinct invoice pks, in random order.
    let updateIDs: [Int64]
    /// Step 5: distinct client pks, in random order.
    let relationshipClientIDs: [Int64]

    init(sizes: Sizes, seed: UInt64 = 0x1A55_0E5) {
        self.sizes = sizes
        var rng = SplitMix64(seed: seed)
        let clients = Self.makeClients(count: sizes.clients, rng: &rng)
        self.clients = clients
        invoices = Self.makeInvoices(count: sizes.invoices, clients: clients, rng: &rng)
        lookupIDs = Self.sample(sizes.lookups, from: sizes.invoices, rng: &rng)
        updateIDs = Self.sample(sizes.updates, from: sizes.invoices, rng: &rng)
        relationshipClientIDs = Self.sample(sizes.relationshipClients, from: sizes.clients, rng: &rng)
    }

    // Dates are whole seconds so `InvoiceDigest` can sum them exactly.
    private static let epoch2020: Int = 1_577_836_800
    private static let day = 86_400

    private static let cities: [(String, String)] = [
        ("Paris", "France"), ("Lyon", "France"), ("Berlin", "Germany"), ("Munich", "Germany"),
        ("Madrid", "Spain"), ("Lisbon", "Portugal"), ("New York", "USA"), ("Austin", "USA"),
        ("Tokyo", "Japan"), ("Osaka", "Japan"), ("Montréal", "Canada"), ("Zürich", "Switzerland"),
    ]
    private static let nameParts = (
        ["Acme", "Globex", "Initech", "Umbrella", "Stark", "Wayne", "Tyrell", "Cyberdyne", "Soylent", "Hooli"],
        ["Consulting", "Industries", "Labs", "& Sons", "GmbH", "SARL", "Holdings", "Studio"]
    )
    private static let notes = [
        "Net 30.",
        "Paid by bank transfer; reference on the statement.",
        "Please quote the invoice identifier with your payment.",
        "Discount of 5% applied for early payment, as agreed on the phone with the accounting team.",
    ]

    private static func makeClients(count: Int, rng: inout SplitMix64) -> [ClientData] {
        (0..<count).map { index in
            let pk = Int64(index + 1)
            let (city, country) = cities[rng.below(cities.count)]
            let name = "\(nameParts.0[rng.below(nameParts.0.count)]) \(nameParts.1[rng.below(nameParts.1.count)]) \(pk)"
            // One client in ten has no email: exercises NULL in a UNIQUE column.
            let email: String? = rng.below(10) == 0 ? nil : "billing\(pk)@client\(pk).example"
            let createdAt = Date(timeIntervalSince1970: Double(epoch2020 + rng.below(3 * 365 * day)))
            return ClientData(pk: pk, name: name, email: email, city: city, country: country, createdAt: createdAt)
        }
    }

    private static func makeInvoices(count: Int, clients: [ClientData], rng: inout SplitMix64) -> [InvoiceData] {
        (0..<count).map { index in
            let pk = Int64(index + 1)
            let client = clients[rng.below(clients.count)]
            // 60% EUR, 30% USD, 10% JPY; yen have no minor unit.
            let roll = rng.below(10)
            let currency: Currency = roll < 6 ? .eur : roll < 9 ? .usd : .jpy
            let amount = currency == .jpy
                ? Decimal(100 + rng.below(5_000_000))
                : Decimal(sign: .plus, exponent: -2, significand: Decimal(1_000 + rng.below(5_000_000)))
            let status = InvoiceStatus.allCases[rng.below(InvoiceStatus.allCases.count)]
            let issue = client.createdAt.timeIntervalSince1970 + Double(rng.below(700) * day)
            // Three invoices in ten carry notes.
            let notes: String? = rng.below(10) < 3 ? Self.notes[rng.below(Self.notes.count)] : nil
            return InvoiceData(
                pk: pk, identifier: String(format: "INV-%07d", index + 1), amount: amount,
                currency: currency, status: status,
                issueDate: Date(timeIntervalSince1970: issue),
                dueDate: Date(timeIntervalSince1970: issue + Double(30 * day)),
                notes: notes, client: client.pk)
        }
    }

    /// `count` distinct pks in 1...`population`, in random order (a partial
    /// Fisher-Yates shuffle). Distinct, so no implementation gets a cache hit
    /// inside one run from a repeated ID.
    private static func sample(_ count: Int, from population: Int, rng: inout SplitMix64) -> [Int64] {
        var pool = Array(1...Int64(population))
        let count = min(count, population)
        for i in 0..<count {
            pool.swapAt(i, i + rng.below(population - i))
        }
        return Array(pool[..<count])
    }
}
