import Logging
import ObjectGraph

/// The clients an import can attach invoices to, by email and by name: those in the store
/// when the import starts, plus those it creates. Values only (object IDs), so it survives
/// from one batch's block to the next.
struct ClientDirectory: Sendable {
    private(set) var byEmail: [String: ObjectID] = [:]
    private(set) var byName: [String: [ObjectID]] = [:]

    /// How a name is compared: case-insensitively, white space collapsed.
    static func nameKey(_ name: String) -> String {
        name.lowercased().split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    mutating func add(_ id: ObjectID, name: String, email: String?) {
        if let email { byEmail[email] = id }
        byName[Self.nameKey(name), default: []].append(id)
    }

    mutating func remove(_ id: ObjectID, name: String, email: String?) {
        if let email, byEmail[email] == id { byEmail[email] = nil }
        let key = Self.nameKey(name)
        byName[key]?.removeAll { $0 == id }
        if byName[key]?.isEmpty == true { byName[key] = nil }
    }

    /// After a save: the temporary IDs of created clients become their permanent ones.
    mutating func replace(_ ids: [ObjectID: ObjectID]) {
        guard !ids.isEmpty else { return }
        for (email, id) in byEmail { if let new = ids[id] { byEmail[email] = new } }
        for (key, list) in byName where list.contains(where: { ids[$0] != nil }) {
            byName[key] = list.map { ids[$0] ?? $0 }
        }
    }

    /// What a row's client fields match.
    enum Match {
        case existing(ObjectID)
        case ambiguous(count: Int)
        case none
    }

    /// Matches by email first, then by name.
    func match(email: String?, name: String?) -> Match {
        if let email, let id = byEmail[email] { return .existing(id) }
        guard let name else { return .none }
        let candidates = byName[Self.nameKey(name)] ?? []
        switch candidates.count {
        case 0: return .none
        case 1: return .existing(candidates[0])
        default: return .ambiguous(count: candidates.count)
        }
    }
}

extension ClientDirectory {
    /// The clients in the store now, read in `context`'s block.
    static func load(from context: ManagedObjectContext, logger: Logger) async throws(ImportError) -> ClientDirectory {
        do {
            return try await context.perform { () throws -> ClientDirectory in
                var directory = ClientDirectory()
                for client in try context.fetch(FetchRequest<Client>()) {
                    directory.add(client.objectID, name: client.name, email: client.email)
                }
                return directory
            }
        } catch {
            throw .store(error, importedBefore: 0, logger: logger)
        }
    }
}
