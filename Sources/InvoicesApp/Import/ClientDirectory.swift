import Foundation
import Logging
import ObjectGraph

/// The clients an import can attach invoices to, by email and by name.
///
/// Emails are looked up in the store a batch at a time, through its unique index
/// (``lookUpEmails(_:in:)``), so memory holds one batch's. Names are matched as people type
/// them, case-insensitively with white space collapsed, which no index of the store answers:
/// for them the directory keeps a 64-bit hash of every client's name key with its ID (about
/// 40 bytes a client, not the names themselves), and a hit is confirmed against the client's
/// stored name, so two names that share a hash never match each other.
///
/// Values only (object IDs), so it survives from one batch's block to the next.
struct ClientDirectory: Sendable {
    /// This batch's emails: the store's matches and the clients the batch created.
    private var byEmail: [String: ObjectID] = [:]
    private var byName: [UInt64: NameEntry] = [:]
    /// Names added since the last save, by temporary ID: the only entries ``replace(_:)`` touches.
    private var addedSinceSave: [(hash: UInt64, id: ObjectID)] = []

    /// One name key's clients: almost always one, so no array for it.
    private enum NameEntry: Sendable {
        case one(ObjectID)
        case many([ObjectID])

        var ids: [ObjectID] {
            switch self {
            case .one(let id): [id]
            case .many(let ids): ids
            }
        }

        init?(_ ids: [ObjectID]) {
            switch ids.count {
            case 0: return nil
            case 1: self = .one(ids[0])
            default: self = .many(ids)
            }
        }
    }

    /// How a name is compared: case-insensitively, white space collapsed.
    static func nameKey(_ name: String) -> String {
        name.lowercased().split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    /// FNV-1a over a name key's UTF-8 (see ``nameKey(_:)``): stable across runs, unlike `Hasher`.
    static func hash(ofKey key: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in key.utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }
        return hash
    }

    mutating func add(_ id: ObjectID, name: String, email: String?) {
        if let email { byEmail[email] = id }
        let hash = Self.hash(ofKey: Self.nameKey(name))
        let known = byName[hash]?.ids ?? []
        guard !known.contains(id) else { return }
        byName[hash] = NameEntry(known + [id])
        if id.isTemporaryID { addedSinceSave.append((hash, id)) }
    }

    mutating func remove(_ id: ObjectID, name: String, email: String?) {
        if let email, byEmail[email] == id { byEmail[email] = nil }
        let hash = Self.hash(ofKey: Self.nameKey(name))
        byName[hash] = byName[hash].flatMap { NameEntry($0.ids.filter { $0 != id }) }
        addedSinceSave.removeAll { $0.id == id }
    }

    /// After a save: the temporary IDs of created clients become their permanent ones.
    mutating func replace(_ ids: [ObjectID: ObjectID]) {
        for (email, id) in byEmail { if let new = ids[id] { byEmail[email] = new } }
        for (hash, old) in addedSinceSave {
            guard let new = ids[old], let entry = byName[hash] else { continue }
            byName[hash] = NameEntry(entry.ids.map { $0 == old ? new : $0 })
        }
        addedSinceSave.removeAll()
    }

    /// What a row's client fields match.
    enum Match {
        case existing(ObjectID)
        case ambiguous(count: Int)
        case none
    }

    /// Matches by email first (among this batch's, see ``lookUpEmails(_:in:)``), then by name.
    /// - Parameter storedName: a candidate's name, read in the batch's context; nil when it is
    ///   gone.
    func match(email: String?, name: String?, storedName: (ObjectID) -> String?) -> Match {
        if let email, let id = byEmail[email] { return .existing(id) }
        guard let name else { return .none }
        let key = Self.nameKey(name)
        guard let entry = byName[Self.hash(ofKey: key)] else { return .none }
        let confirmed = entry.ids.filter { id in storedName(id).map(Self.nameKey) == key }
        switch confirmed.count {
        case 0: return .none
        case 1: return .existing(confirmed[0])
        default: return .ambiguous(count: confirmed.count)
        }
    }
}

extension ClientDirectory {
    /// Replaces the batch's emails with the store's clients that have one of `emails`, found
    /// by the unique index on email. Runs in `context`'s block, after its last save.
    mutating func lookUpEmails(_ emails: Set<String>, in context: ManagedObjectContext) throws {
        let wanted = Array(emails)
        let request = FetchRequest<Client>(predicate: #Predicate { client in
            client.email.flatMap { wanted.contains($0) } == true
        })
        byEmail = [:]
        for client in try context.fetch(request) {
            if let email = client.email { byEmail[email] = client.objectID }
        }
    }

    /// Every client's name in the store now, read a page at a time in `context`'s block, which
    /// is reset after each page so that memory never holds every client.
    static func load(from context: ManagedObjectContext, logger: Logger) async throws(ImportError) -> ClientDirectory {
        do {
            return try await context.perform { () throws -> ClientDirectory in
                var directory = ClientDirectory()
                // In the order of the index on name: pages that do not shift under each other.
                var request = FetchRequest<Client>(sortBy: [SortDescriptor(\Client.name)])
                request.fetchLimit = 5_000
                request.fetchOffset = 0
                while true {
                    let page = try context.fetch(request)
                    for client in page { directory.add(client.objectID, name: client.name, email: nil) }
                    context.reset()
                    if page.count < 5_000 { break }
                    request.fetchOffset += page.count
                }
                return directory
            }
        } catch {
            throw .store(error, importedBefore: 0, logger: logger)
        }
    }
}
