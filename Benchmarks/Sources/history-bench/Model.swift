import Foundation
import ObjectGraph

/// The benchmark's model: invoices for the batch runs, an account for the latency run.
final class BenchClient: ManagedObject {
    @Attribute var name: String
    @Relationship(inverse: \BenchInvoice.client, deleteRule: .cascade) var invoices: Set<BenchInvoice>
}

final class BenchInvoice: ManagedObject {
    @Attribute var identifier: String
    @Attribute var amount: Double = 0
    @Attribute var currency: String = "EUR"
    @Attribute var status: String = "draft"
    @Attribute var issueDate: Date = Date(timeIntervalSince1970: 0)
    @Attribute var notes: String?
    @Relationship var client: BenchClient?
}

final class BenchAccount: ManagedObject {
    @Attribute var name: String
    @Attribute var sequence: Int64 = 0
}

enum BenchModel {
    static let model: ManagedObjectModel = {
        do { return try ManagedObjectModel(entities: [BenchClient.self, BenchInvoice.self, BenchAccount.self]) } catch {
            fatalError("bench model: \(error)")
        }
    }()

    static func coordinator(at path: String, history: Bool, remote: Bool = false) throws -> PersistentStoreCoordinator {
        let coordinator = PersistentStoreCoordinator(model: model)
        var description = PersistentStoreDescription.sqlite(at: URL(fileURLWithPath: path), recordsHistory: history,
                                                            postsRemoteChangeNotifications: remote)
        description.remoteChangeCheckInterval = 0.01
        try coordinator.addPersistentStore(description)
        return coordinator
    }
}

/// CLOCK_MONOTONIC in nanoseconds: the same clock in both processes.
func monotonicNanoseconds() -> Int64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
}

func percentile(_ sorted: [Double], _ p: Double) -> Double {
    guard !sorted.isEmpty else { return .nan }
    let index = min(sorted.count - 1, max(0, Int((p * Double(sorted.count - 1)).rounded())))
    return sorted[index]
}

func median(_ values: [Double]) -> Double { percentile(values.sorted(), 0.5) }

func format(_ value: Double, _ digits: Int = 1) -> String { String(format: "%.\(digits)f", value) }
