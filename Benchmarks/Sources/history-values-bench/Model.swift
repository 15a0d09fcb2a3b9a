import Foundation
import ObjectGraph

/// The invoice the benchmark edits, twice over: one class records its values in persistent
/// history, the other does not. Same columns, same table name pattern.
protocol EditedInvoice: ManagedObject {
    var identifier: String { get set }
    var amount: Decimal { get set }
    var status: String { get set }
}

final class PlainInvoice: ManagedObject, EditedInvoice {
    @Attribute var identifier: String
    @Attribute var amount: Decimal = 0
    @Attribute var status: String = "draft"
    @Attribute var notes: String?
}

final class ValuedInvoice: ManagedObject, EditedInvoice {
    override class var recordsValuesInHistory: Bool { true }
    @Attribute var identifier: String
    @Attribute var amount: Decimal = 0
    @Attribute var status: String = "draft"
    @Attribute var notes: String?
}

enum BenchModels {
    static let plain = make([PlainInvoice.self])
    static let valued = make([ValuedInvoice.self])

    private static func make(_ types: [ManagedObject.Type]) -> ManagedObjectModel {
        do { return try ManagedObjectModel(entities: types) } catch { fatalError("bench model: \(error)") }
    }

    static func coordinator(_ model: ManagedObjectModel, at path: String, history: Bool) throws -> PersistentStoreCoordinator {
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addPersistentStore(.sqlite(at: URL(fileURLWithPath: path), recordsHistory: history))
        return coordinator
    }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// CLOCK_MONOTONIC in milliseconds.
func nowMilliseconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Double(now.tv_sec) * 1000 + Double(now.tv_nsec) / 1e6
}

func percentile(_ values: [Double], _ p: Double) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    return sorted[min(sorted.count - 1, max(0, Int((p * Double(sorted.count - 1)).rounded())))]
}

func median(_ values: [Double]) -> Double { percentile(values, 0.5) }

func format(_ value: Double, _ digits: Int = 1) -> String { String(format: "%.\(digits)f", value) }

extension String {
    func padded(_ width: Int) -> String { padding(toLength: max(width, count), withPad: " ", startingAt: 0) }
    func leftPadded(_ width: Int) -> String { count >= width ? self : String(repeating: " ", count: width - count) + self }
}
