import Foundation
import Testing
import TestSupport

/// Whether the store tests ran on PostgreSQL too. Skipped, saying why, when PostgreSQL is not
/// installed (the tests then ran on SQLite only); a server that is installed but does not
/// start fails here with its log.
@Suite struct PostgreSQLAvailabilityTests {
    static var notInstalled: String? {
        if case .failure(.notInstalled) = PostgreSQLServer.shared, case .failure(let reason) = PostgreSQLServer.shared {
            return reason.description
        }
        return nil
    }

    @Test(.enabled("PostgreSQL is not installed: the store tests ran on SQLite only (make test installs Debian's postgresql)") {
        Self.notInstalled == nil
    })
    func theStoreTestsRunOnPostgreSQL() throws {
        let server = try PostgreSQLServer.shared.get()
        #expect(server.port > 0)
        #expect(TestStore.all.contains(.postgreSQL))
    }
}
