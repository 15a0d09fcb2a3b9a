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

    /// SQLite, and PostgreSQL when it is installed (a server that is installed but does not
    /// start fails the PostgreSQL cases with its log). Deciding starts nothing: the server
    /// starts at the first test that needs it, on a thread of its own.
    static let all: [StackStore] = [.sqlite] + (PostgreSQLServer.isInstalled ? [.postgreSQL] : [])

    var testDescription: String { rawValue }

    /// A stack on a new, empty store.
    func makeStack(persist: PersistMode = .immediate) async throws -> InvoicesStack {
        switch self {
        case .sqlite:
            return try InvoicesStack(storeURL: TestFiles.database(), persist: persist)
        case .postgreSQL:
            let schema = "t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
            let url = try await PostgreSQLServer.sharedServer().url()
            return try await onThreadOfItsOwn {
                try InvoicesStack(postgreSQL: url, persist: persist, model: nil, schema: schema)
            }
        }
    }

    /// A new, empty store several stacks and processes can open: a file, or a database.
    func makeLocation() async throws -> StoreLocation {
        switch self {
        case .sqlite: .sqlite(TestFiles.database())
        case .postgreSQL: .postgreSQL(url: try await PostgreSQLServer.sharedServer().newDatabase())
        }
    }
}

/// Whether the dashboard's tests ran on PostgreSQL too.
@Suite struct PostgreSQLDashboardAvailabilityTests {
    @Test(.enabled("PostgreSQL is not installed: the dashboard's store tests ran on SQLite only (make test installs Debian's postgresql)") {
        PostgreSQLServer.isInstalled
    })
    func theStackTestsRunOnPostgreSQL() async throws {
        // An installed server that does not start fails here, with its log.
        let server = try await PostgreSQLServer.sharedServer()
        #expect(server.port > 0)
        #expect(StackStore.all.contains(.postgreSQL))
    }
}

/// Opens a stack on `location`; on PostgreSQL on a thread of its own (connecting and preparing
/// the schema block), so the test's wait holds none of Swift's cooperative threads.
func openStack(_ location: StoreLocation, persist: PersistMode = .immediate) async throws -> InvoicesStack {
    if case .sqlite = location { return try InvoicesStack.open(location, persist: persist) }
    return try await onThreadOfItsOwn { try InvoicesStack.open(location, persist: persist) }
}
