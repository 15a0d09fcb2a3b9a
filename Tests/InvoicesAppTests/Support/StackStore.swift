import Foundation
import Testing
import TestSupport
@testable import InvoicesApp

/// A kind of store the key stack tests run on: each such test takes it as its argument and
/// runs once per store, from one body.
///
/// ```swift
/// @Test(arguments: StackStore.all) func theSearchFindsNames(_ store: StackStore) async throws {
///     let stack = try await makeFixtureStack(store)
/// }
/// ```
///
/// PostgreSQL runs on the test process's own server (``PostgreSQLServer/shared``): a stack
/// opened in this process gets a schema of its own, a location that processes share
/// (``StoreLocation``) gets a database of its own. Without PostgreSQL installed, ``all`` is
/// SQLite alone and `PostgreSQLDashboardAvailabilityTests` is skipped, saying so.
enum StackStore: String, Sendable, Hashable, CustomTestStringConvertible {
    case sqlite = "SQLite"
    case postgreSQL = "PostgreSQL"

    /// SQLite, and PostgreSQL when its server runs.
    static let all: [StackStore] = [.sqlite] + (isPostgreSQLAvailable ? [.postgreSQL] : [])

    static var isPostgreSQLAvailable: Bool {
        if case .success = PostgreSQLServer.shared { return true }
        return false
    }

    var testDescription: String { rawValue }

    /// A stack on a new, empty store.
    func makeStack(persist: PersistMode = .immediate) throws -> InvoicesStack {
        switch self {
        case .sqlite:
            return try InvoicesStack(storeURL: TestFiles.database(), persist: persist)
        case .postgreSQL:
            let schema = "t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
            return try InvoicesStack(postgreSQL: try PostgreSQLServer.shared.get().url(), persist: persist, model: nil,
                                     schema: schema)
        }
    }

    /// A new, empty store several stacks and processes can open: a file, or a database.
    func makeLocation() async throws -> StoreLocation {
        switch self {
        case .sqlite: .sqlite(TestFiles.database())
        case .postgreSQL: .postgreSQL(url: try await PostgreSQLServer.shared.get().newDatabase())
        }
    }
}

/// Whether the dashboard's tests ran on PostgreSQL too.
@Suite struct PostgreSQLDashboardAvailabilityTests {
    static var notInstalled: Bool {
        if case .failure(.notInstalled) = PostgreSQLServer.shared { return true }
        return false
    }

    @Test(.enabled("PostgreSQL is not installed: the dashboard's store tests ran on SQLite only (make test installs Debian's postgresql)") {
        !Self.notInstalled
    })
    func theStackTestsRunOnPostgreSQL() throws {
        // An installed server that does not start fails here, with its log.
        let server = try PostgreSQLServer.shared.get()
        #expect(server.port > 0)
        #expect(StackStore.all.contains(.postgreSQL))
    }
}
