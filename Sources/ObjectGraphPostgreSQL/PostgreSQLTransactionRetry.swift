import Foundation
import ObjectGraph

/// Runs a write transaction again when PostgreSQL aborted it for concurrent ones: a
/// serialization failure (SQLSTATE 40001) or a deadlock (40P01). Both roll the whole
/// transaction back, so running it again from the start is safe; it usually succeeds once the
/// other transaction has committed. The tries are bounded, with a growing, jittered pause
/// (about 10, 20, 40, 80 ms), so two servers that keep colliding give up with
/// ``StoreError/contention(location:sqlState:attempts:)`` instead of hanging.
enum PostgreSQLTransactionRetry {
    /// How many times a transaction is tried in all.
    static let attempts = 5

    static func run<T>(location: String, _ body: () throws -> T) throws -> T {
        var attempt = 1
        while true {
            do {
                return try body()
            } catch StoreError.server(let state, _, _)
                        where state == PostgreSQLState.serializationFailure || state == PostgreSQLState.deadlockDetected {
                guard attempt < attempts else {
                    throw StoreError.contention(location: location, sqlState: state, attempts: attempt)
                }
                Thread.sleep(forTimeInterval: 0.005 * Double(1 << attempt) * Double.random(in: 0.5...1.5))
                attempt += 1
            }
        }
    }
}
