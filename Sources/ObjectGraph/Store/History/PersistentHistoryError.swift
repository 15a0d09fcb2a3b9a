import Foundation

/// Why persistent history could not be read or purged. Each case says what to do.
public enum PersistentHistoryError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The store does not record history: set `recordsHistory` on its description.
    case notRecorded(path: String)
    /// History up to and including transaction `purgedThrough` was purged, and the token
    /// points before that: the changes in between are gone (Core Data's 134301).
    case tokenExpired(PersistentHistoryToken, purgedThrough: Int64)
    /// The token was made by another store (another file, or a file made anew).
    case tokenOfAnotherStore(PersistentHistoryToken, store: UUID)
    /// The token points after the last transaction: it cannot have come from this store's
    /// history (a file restored from an older backup, for example).
    case tokenInTheFuture(PersistentHistoryToken, last: Int64)
    /// The object ID names a row of another store, whose history this store does not hold.
    case objectOfAnotherStore(ObjectID, store: UUID)
    /// A consumer name must be non-empty.
    case invalidConsumerName(String)
    /// The consumer was unregistered: the history it had not merged may be purged already.
    case consumerUnregistered(String)

    public var code: Int {
        switch self {
        case .tokenExpired: return 134301
        case .notRecorded: return 134091
        case .tokenOfAnotherStore, .objectOfAnotherStore, .tokenInTheFuture, .invalidConsumerName, .consumerUnregistered: return 134300
        }
    }

    public var description: String {
        switch self {
        case .notRecorded(let path):
            return "\(path) does not record persistent history. Open it with `recordsHistory = true` on the store description."
        case .tokenExpired(let token, let purged):
            return "The \(token) has expired: history through transaction \(purged) was purged, so the changes after the token are gone. Refetch what you show, then continue from `currentHistoryToken`."
        case .tokenOfAnotherStore(let token, let store):
            return "The \(token) belongs to another store than this one (\(store.uuidString)). Start again from this store's `currentHistoryToken`."
        case .tokenInTheFuture(let token, let last):
            return "The \(token) is past the last transaction (\(last)): the file is older than the token. Start again from `currentHistoryToken`."
        case .objectOfAnotherStore(let id, let store):
            return "\(id) belongs to another store than this one (\(store.uuidString)), so its history is not here. Ask the coordinator of the store that holds it."
        case .invalidConsumerName(let name):
            return "\"\(name)\" is not a valid history consumer name: give a non-empty name, the same every time the process starts."
        case .consumerUnregistered(let name):
            return "The history consumer \"\(name)\" was unregistered, so history it had not merged may be gone. Make a new consumer (it starts at the current token) and refetch what you show."
        }
    }
}
