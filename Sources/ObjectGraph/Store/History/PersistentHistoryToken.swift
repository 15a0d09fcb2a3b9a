import Foundation

/// A position in a store's persistent history: the state after one transaction.
///
/// Tokens cross queues and processes (`Sendable`, `Codable`): keep the last one you processed,
/// encoded on disk if you like, and ask for ``PersistentStoreCoordinator/history(after:)``
/// with it after a restart.
///
/// ```swift
/// let data = try JSONEncoder().encode(token)
/// let restored = try JSONDecoder().decode(PersistentHistoryToken.self, from: data)
/// let news = try coordinator.history(after: restored)
/// ```
public struct PersistentHistoryToken: Sendable, Codable, Hashable, Comparable, CustomStringConvertible {
    /// The store the token belongs to: tokens of another store are refused.
    public let storeIdentifier: UUID
    /// The number of the last transaction the token includes (0: before the first one).
    public let transactionNumber: Int64

    public init(storeIdentifier: UUID, transactionNumber: Int64) {
        self.storeIdentifier = storeIdentifier
        self.transactionNumber = transactionNumber
    }

    /// Orders tokens of one store; tokens of different stores compare by store first, which
    /// means nothing but keeps the order total.
    public static func < (lhs: Self, rhs: Self) -> Bool {
        if lhs.storeIdentifier != rhs.storeIdentifier { return lhs.storeIdentifier.uuidString < rhs.storeIdentifier.uuidString }
        return lhs.transactionNumber < rhs.transactionNumber
    }

    public var description: String { "history token \(transactionNumber) of store \(storeIdentifier.uuidString)" }
}
