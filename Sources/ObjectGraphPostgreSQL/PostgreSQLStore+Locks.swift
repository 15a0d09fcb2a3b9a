import Foundation
import ObjectGraph

extension PostgreSQLStore {
    /// Runs `body` while holding a lock named `name` in the database, so that of several
    /// processes or servers running it at once, one runs it at a time: "fill an empty database
    /// with demo data" done by three servers starting together fills it once.
    ///
    /// The lock is a session-level advisory lock (`pg_advisory_lock(hashtext(name))`) on a
    /// connection of its own, released when `body` ends, or by the server if this process dies.
    /// `body` may use the store meanwhile.
    /// - Throws: ``StoreError/unreachable(location:reason:)`` when the lock cannot be taken,
    ///   and what `body` throws.
    public func withExclusiveLock<T>(named name: String, _ body: () async throws -> T) async throws -> T {
        let connection = try PostgreSQLConnection(conninfo: conninfo, location: location, sessionSetup: sessionSetup)
        try connection.run("SELECT pg_advisory_lock(hashtext(\(.string(name))))")
        // Closing the connection (when it goes, below) releases the lock too: an unlock that
        // fails because the server went away loses nothing.
        defer { _ = try? connection.run("SELECT pg_advisory_unlock(hashtext(\(.string(name))))") }
        return try await body()
    }
}
