/// The operations of the issue, in the order each round runs them.
enum Operation: String, CaseIterable, Codable, Sendable {
    case insert, fetchAll, fetchByKey, update, relationship
    /// Peak RSS of a child process that fetches all invoices (see Memory.swift).
    case memory

    func title(_ sizes: Sizes) -> String {
        func k(_ n: Int) -> String { n >= 1000 && n % 1000 == 0 ? "\(n / 1000)k" : "\(n)" }
        switch self {
        case .insert: return "insert \(k(sizes.clients)) clients + \(k(sizes.invoices)) invoices, one save"
        case .fetchAll: return "fetch all \(k(sizes.invoices)) invoices, read every attribute"
        case .fetchByKey: return "get \(k(sizes.lookups)) invoices by key, one by one"
        case .update: return "update 2 attributes of \(k(sizes.updates)) invoices, save"
        case .relationship: return "invoices of \(k(sizes.relationshipClients)) clients via the relationship"
        case .memory: return "peak RSS after fetching all \(k(sizes.invoices)) (MiB)"
        }
    }

    /// The goal: at most this many times raw SQLite (and, for timed operations, at most GRDB).
    var goalOverRaw: Double { 2.0 }
    var hasGoalOverGRDB: Bool { self != .memory }
}
