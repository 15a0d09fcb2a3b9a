import Foundation
import ObjectGraph

final class BenchClient: ManagedObject {
    @Attribute var name: String
    @Relationship(inverse: \BenchInvoice.client, deleteRule: .cascade) var invoices: Set<BenchInvoice>
}

final class BenchInvoice: ManagedObject {
    @Attribute var identifier: String
    @Attribute var amount: Decimal = 0
    @Attribute var currency: String = "EUR"
    @Attribute var status: String = "draft"
    @Relationship var client: BenchClient?
}

/// The invoices of the benchmark: amounts with two decimals, five currencies, a third
/// of them sent; made from a fixed seed so every run sums the same numbers.
struct Dataset {
    static let currencies = ["CHF", "EUR", "GBP", "JPY", "USD"]
    let count: Int
    let amounts: [Decimal]
    /// Exact totals per currency, added as Decimal: (all invoices, sent ones).
    let totals: [String: Decimal]
    let sentTotals: [String: Decimal]

    init(count: Int) {
        var generator = SplitMix(seed: 14)
        var amounts: [Decimal] = []
        var totals: [String: Decimal] = [:], sent: [String: Decimal] = [:]
        for n in 0..<count {
            let amount = Decimal(Int(generator.next() % 10_000_000)) / 100
            amounts.append(amount)
            totals[Self.currency(n), default: 0] += amount
            if Self.isSent(n) { sent[Self.currency(n), default: 0] += amount }
        }
        self.count = count
        self.amounts = amounts
        self.totals = totals
        self.sentTotals = sent
    }

    static func currency(_ n: Int) -> String { currencies[n % currencies.count] }
    static func isSent(_ n: Int) -> Bool { n % 3 == 0 }
}

struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

func monotonicNanoseconds() -> UInt64 { DispatchTime.now().uptimeNanoseconds }
func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}
func format(_ value: Double, _ digits: Int = 2) -> String { String(format: "%.\(digits)f", value) }
