import Foundation
import Testing
import TestSupport
@testable import ObjectGraph
@testable import ObjectGraphPostgreSQL

/// What the PostgreSQL store does with concurrent transactions and substring searches: a
/// transaction the server aborts for another (serialization failure, deadlock) runs again a
/// bounded number of times, then fails typed; a case-insensitive substring search reads a
/// trigram index and treats `%` and `_` as themselves. (Other model versions:
/// `StoreMigrationTests`, on every shared store.)
@Suite(.enabled(if: TestStore.isPostgreSQLAvailable, "PostgreSQL is not installed: see PostgreSQLAvailabilityTests"))
struct PostgreSQLContentionTests {
    /// A connection of the test's own to the location's schema, for what a test does behind
    /// the store (triggers, EXPLAIN).
    static func connection(to location: StoreLocation) throws -> PostgreSQLConnection {
        try PostgreSQLConnection(conninfo: try PostgreSQLServer.shared.get().url(), location: "test",
                                 sessionSetup: "SET client_min_messages TO warning; SET search_path TO \(SQLDialect.quote(location.schema))")
    }

    /// Makes every insert into `Client` fail with `state` while `aborts` has handed out at most
    /// `times` numbers (a sequence: it is not rolled back with the aborted transaction).
    static func abortInserts(in location: StoreLocation, with state: String, times: Int) throws {
        try connection(to: location).execute("""
            CREATE SEQUENCE aborts;
            CREATE FUNCTION abort_inserts() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF nextval('aborts') <= \(times) THEN RAISE EXCEPTION 'aborted by the test' USING ERRCODE = '\(state)'; END IF;
                RETURN NEW;
            END $$;
            CREATE TRIGGER abort_inserts BEFORE INSERT ON "Client" FOR EACH ROW EXECUTE FUNCTION abort_inserts();
            """)
    }

    static func saveClient(_ name: String, in coordinator: PersistentStoreCoordinator) async -> (any Error)? {
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        return await context.perform { () -> (any Error)? in
            Client(context: context).name = name
            do { try context.save(); return nil } catch { return error }
        }
    }

    @Test func aTransactionAbortedForASerializationFailureRunsAgainAndCommits() async throws {
        let location = TestStore.postgreSQL.makeLocation()
        let coordinator = try location.coordinator()
        try Self.abortInserts(in: location, with: PostgreSQLState.serializationFailure, times: 2)
        let error = await Self.saveClient("Third time lucky", in: coordinator)
        #expect(error == nil, "\(String(describing: error))")
        let tries = try Self.connection(to: location).query("SELECT last_value FROM aborts").int(0, 0)
        #expect(tries == 3)
        let names = try Self.connection(to: location).query("SELECT count(*) FROM \"Client\"").int(0, 0)
        #expect(names == 1)
    }

    @Test func aTransactionDeadlockedEveryTimeGivesUpTypedInsteadOfHanging() async throws {
        let location = TestStore.postgreSQL.makeLocation()
        let coordinator = try location.coordinator()
        try Self.abortInserts(in: location, with: PostgreSQLState.deadlockDetected, times: 1_000)
        let start = ContinuousClock.now
        let error = await Self.saveClient("Never", in: coordinator)
        // Bounded: five tries with pauses of about 10 to 80 ms. Four minutes only catch a hang:
        // under TSan the whole test process has been seen to stall for over a minute (66 s
        // was measured here once), and the attempts below are the firm bound.
        #expect(ContinuousClock.now - start < .seconds(240))
        guard case SaveError.storeFailure(.contention(_, let state, let attempts))? = error else {
            Issue.record("expected StoreError.contention, got \(String(describing: error))")
            return
        }
        #expect(state == PostgreSQLState.deadlockDetected)
        #expect(attempts == PostgreSQLTransactionRetry.attempts)
        #expect(try Self.connection(to: location).query("SELECT last_value FROM aborts").int(0, 0)
                == Int64(PostgreSQLTransactionRetry.attempts))
    }

    /// A save whose object changed only in to-many relationships does not write its row, but
    /// reads it `FOR SHARE`: another server's uncommitted edit of the row makes it wait, and it
    /// settles at the row that edit committed. Read without the lock, it would settle its
    /// context and the row cache at the version before the edit, over the newer row.
    @Test func aToManyOnlySaveWaitsForAnotherServersUncommittedEditAndSettlesAtItsRow() async throws {
        let location = TestStore.postgreSQL.makeLocation()
        let adder = ManagedObjectContext(.privateQueue, coordinator: try location.coordinator())
        adder.retainsRegisteredObjects = true
        let id = try await adder.perform { () -> ObjectID in
            let client = Client(context: adder)
            client.name = "Acme"
            try adder.save()
            _ = client.invoices
            return client.objectID
        }
        let other = try Self.connection(to: location)
        try other.execute("BEGIN; UPDATE \"Client\" SET name = 'Acme (other server)', _version = _version + 1")
        let saving = Task {
            try await adder.perform {
                let invoice = Invoice(context: adder)
                invoice.identifier = "INV-1"
                invoice.client = try adder.existingObject(with: id, as: Client.self)
                try adder.save()
            }
        }
        try await Task.sleep(for: .milliseconds(300))
        try other.execute("COMMIT")
        try await saving.value
        let (name, version, invoices) = try await adder.perform {
            let client = try adder.existingObject(with: id, as: Client.self)
            return (client.name, client.rowVersion, client.invoices.map(\.identifier))
        }
        #expect(name == "Acme (other server)")
        #expect(version == 2)
        #expect(invoices == ["INV-1"])
    }

    @Test func aSubstringSearchReadsTheTrigramIndexAndMatchesWildcardsLiterally() async throws {
        let location = TestStore.postgreSQL.makeLocation()
        let coordinator = PersistentStoreCoordinator(model: TestStack.model)
        var configuration = PostgreSQLStore.Configuration(url: try PostgreSQLServer.shared.get().url(), schema: location.schema)
        configuration.substringSearchIndexes = [SubstringSearchIndex(entity: "Client", attribute: "name")]
        try coordinator.addPostgreSQLStore(configuration)
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        let (percent, underscore, acme, backslash) = try await context.perform {
            () throws -> ([String], [String], [String], [String]) in
            for name in ["100% Pure", "1000 Pure", "a_b", "axb", "ACME Ltd", "Back\\slash"] { Client(context: context).name = name }
            try context.save()
            func names(_ term: String) throws -> [String] {
                try context.fetch(FetchRequest<Client>(predicate: #Predicate { $0.name.localizedStandardContains(term) },
                                                       sortBy: [SortDescriptor(\.name)])).map(\.name)
            }
            return (try names("0%"), try names("a_b"), try names("acm"), try names("k\\s"))
        }
        #expect(percent == ["100% Pure"])
        #expect(underscore == ["a_b"])
        #expect(acme == ["ACME Ltd"])
        #expect(backslash == ["Back\\slash"])

        // The condition the fetch sends, planned with sequential scans discouraged (the table
        // is small): the trigram index serves it.
        let condition = SQLDialect.postgreSQL.containsIgnoringCase("t0.\"name\"", "'acm'")
        let db = try Self.connection(to: location)
        try db.execute("SET enable_seqscan = off")
        let plan = try db.query("EXPLAIN SELECT t0._pk FROM \"Client\" t0 WHERE \(condition)")
        let text = (0..<plan.rowCount).compactMap { plan.text($0, 0) }.joined(separator: "\n")
        #expect(text.contains("Client_name_trgm"), "\(text)")
    }
}
