import Foundation
import ObjectGraph

/// Why the Invoices stack could not be opened.
public enum StackError: Error, CustomStringConvertible, Sendable {
    /// The object model could not be built (a programming error in the entity declarations).
    case model(String)
    /// The database file cannot be used; the store's message says why and what to do.
    case store(path: String, StoreError)
    /// The folder for the database cannot be created.
    case folder(path: String, reason: String)

    public var description: String {
        switch self {
        case .model(let reason):
            return "The Invoices object model is invalid: \(reason)"
        case .store(_, let error):
            return error.description
        case .folder(let path, let reason):
            return "Cannot create the folder \(path) for the database (\(reason)). Create it, or pass another --db path."
        }
    }
}
