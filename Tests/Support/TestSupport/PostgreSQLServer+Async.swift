import Foundation

/// The blocking parts of ``PostgreSQLServer`` (`initdb`, `createdb`, waiting for the server to
/// start or stop), for `async` tests: each runs on a thread of its own, so a test awaiting it
/// holds none of Swift's cooperative threads (two on a two-core machine) while other tests'
/// servers need them.
extension PostgreSQLServer {
    /// Whether PostgreSQL's programs are installed (nothing is started to tell).
    public static var isInstalled: Bool { (try? binaries()) != nil }

    /// ``shared``, started (at the first call) off the cooperative pool: a test process whose
    /// first test to need PostgreSQL waits for `initdb` keeps every other test running.
    /// - Throws: ``Unavailable``.
    public static func sharedServer() async throws -> PostgreSQLServer {
        try await onThreadOfItsOwn { try shared.get() }
    }

    /// ``start()``, off the cooperative pool.
    public static func started() async throws -> PostgreSQLServer {
        try await onThreadOfItsOwn { try start() }
    }

    /// ``makeDatabase()``, off the cooperative pool.
    public func newDatabase() async throws -> String {
        try await onThreadOfItsOwn { try self.makeDatabase() }
    }

    /// ``shutDown()``, off the cooperative pool.
    public func shutDownAndWait() async {
        _ = try? await onThreadOfItsOwn { self.shutDown() }
    }

    /// ``startAgain()``, off the cooperative pool.
    public func startAgainAndWait() async throws {
        try await onThreadOfItsOwn { try self.startAgain() }
    }

    /// ``stop()``, off the cooperative pool.
    public func stopAndWait() async {
        _ = try? await onThreadOfItsOwn { self.stop() }
    }
}

/// Runs `body` on a new thread and resumes with its result (no semaphore: the awaiting task is
/// suspended, not blocked): for blocking work an `async` test must wait for, such as opening a
/// store on a database server.
public func onThreadOfItsOwn<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}
