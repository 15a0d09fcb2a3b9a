import Foundation
import HTTPTypes
import ObjectGraph
import WebServer

/// A store that cannot answer now but will again by itself: the PostgreSQL server down or
/// restarting, transactions aborted by other servers' past the retries, an SQLite file locked
/// past its timeout. A page or a save that meets one answers 503 with `Retry-After` and the
/// reason, never 500: nothing was changed, and the same request works once the store is back
/// (connections are made again at their next use).
enum StoreOutage {
    /// The store error inside the errors ObjectGraph throws, when it is one that passes.
    static func temporaryFailure(in error: any Error) -> StoreError? {
        let storeError: StoreError? = switch error {
        case let error as StoreError: error
        case FetchError.storeFailure(let error): error
        case SaveError.storeFailure(let error): error
        case AggregateError.storeFailure(let error): error
        case BatchError.storeFailure(let error): error
        case StackError.store(_, let error): error
        default: nil
        }
        guard let storeError, isTemporary(storeError) else { return nil }
        return storeError
    }

    /// Whether the store can be expected back without anyone acting on it.
    static func isTemporary(_ error: StoreError) -> Bool {
        switch error {
        case .unreachable, .contention, .busy:
            return true
        case .server(let state, _, _):
            // Connection exceptions (08…), operator intervention (57P…: shutting down, starting),
            // insufficient resources (53…: too many connections).
            return state.hasPrefix("08") || state.hasPrefix("57P") || state.hasPrefix("53")
        default:
            return false
        }
    }

    /// The 503 a handler's error becomes when it is a passing store failure (installed as the
    /// server's `classifiesErrors`).
    static func httpError(for error: any Error) -> HTTPError? {
        guard let failure = temporaryFailure(in: error) else { return nil }
        var headers = HTTPFields()
        headers[.retryAfter] = "5"
        return HTTPError(.serviceUnavailable,
                         "The database cannot answer right now: \(StoreFailureReason.describe(failure)). "
                            + "Nothing was changed; try again in a few seconds.",
                         headers: headers)
    }
}
