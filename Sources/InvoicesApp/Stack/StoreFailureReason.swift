import Foundation
import ObjectGraph

/// What a person is told when the database refuses a write: what happened, in words, and
/// what they can do; never SQL, file paths or SQLite's own messages. Whoever catches the error
/// logs it whole for the people who run the server.
///
/// ```swift
/// StoreFailureReason.describe(SaveError.storeFailure(.sqlite(code: 13, message: "database or disk is full", sql: "INSERT …")))
/// // "the disk that holds the database is full"
/// ```
enum StoreFailureReason {
    /// A clause to put after "the database refused it": lower case, no final period.
    static func describe(_ error: any Error) -> String {
        switch error {
        case SaveError.storeFailure(let error):
            return describe(error)
        case SaveError.validationFailed(let failures):
            return failures.map(\.message).joined(separator: " ")
        case SaveError.uniquenessViolation(let violation):
            return violation.description
        case SaveError.mergeConflict:
            return "someone changed the same data meanwhile; try again"
        case let error as StoreError:
            return describe(error)
        default:
            return "an unexpected error; the server's log has the details"
        }
    }

    private static func describe(_ error: StoreError) -> String {
        switch error {
        case .busy(_, let timeout):
            let seconds = timeout == timeout.rounded() ? "\(Int(timeout))" : "\(timeout)"
            return "another program kept the database file locked for more than \(seconds) s; try again in a moment"
        case .cannotOpen:
            return "this server cannot write to the database file; whoever runs it should check the file's permissions"
        case .unreachable:
            return "the database server cannot be reached; try again in a moment"
        case .contention:
            return "the database was too busy with other servers' changes; try again in a moment"
        case .server, .unsupported:
            return "the database reported an error; the server's log has the details"
        case .notADatabase, .incompatibleModel, .storeAlreadyAdded, .noStore, .invalidConfiguration,
             .fullTextSearchUnavailable:
            return "the database is not set up for this server; whoever runs it should check its log"
        case .sqlite(let code, _, _):
            switch SQLiteResultCode.primary(code) {
            case SQLiteResultCode.full: return "the disk that holds the database is full"
            case SQLiteResultCode.ioError: return "the database file could not be written (an input/output error)"
            // Any constraint code (unique, check, a trigger's RAISE) has the primary code of this one.
            case SQLiteResultCode.primary(SQLiteResultCode.constraintUnique):
                return "the database does not accept one of the values"
            default: return "the database reported an error (SQLite code \(code)); the server's log has the details"
            }
        }
    }
}
