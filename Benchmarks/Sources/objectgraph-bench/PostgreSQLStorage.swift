import CLibPQBench
import Foundation

/// A database per engine per round on the benchmark's PostgreSQL server, made by a connection
/// of the harness's own, which also checks what the engines wrote.
@MainActor
final class PostgreSQLStorage: Storage {
    private let server: PostgreSQLServer
    private let admin: LibPQConnection
    private var databases: [String: String] = [:]

    init(server: PostgreSQLServer) throws {
        self.server = server
        admin = try LibPQConnection(server.url(database: "postgres"))
    }

    func freshLocation(_ engine: String, round: Int, model: String) throws -> String {
        let name = "\(model)_\(engine)_\(round)"
        try admin.execute("DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
        try admin.execute("CREATE DATABASE \(name)")
        let url = server.url(database: name)
        databases[url] = name
        return url
    }

    func checkAfterInsert<Model: BenchModel>(_ location: String, dataset: Dataset<Model>) throws {
        try withConnection(location) { db in
            try expect(db.scalarInt(#"SELECT count(*) FROM "Client""#) == dataset.clients.count, "client count")
            try expect(db.scalarInt(#"SELECT count(*) FROM "Invoice""#) == dataset.invoices.count, "invoice count")
            try expect(db.scalarInt("""
                SELECT count(*) FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = i.indkey[0]
                WHERE i.indrelid = '"Invoice"'::regclass AND a.attname = 'client'
                """) > 0, "no index on Invoice.client")
            try Model.checkSample(db, dataset)
        }
    }

    func checkAfterUpdate(_ location: String, notes: String, count: Int) throws {
        try withConnection(location) { db in
            let parameters = PGParameters(count: 1)
            parameters.set(0, notes)
            let sql = #"SELECT count(*)::text FROM "Invoice" WHERE "notes" = $1"#
            let result = PQexecParams(db.handle, sql, 1, [PGType.text], parameters.values, parameters.lengths,
                                      parameters.formats, 0)
            defer { PQclear(result) }
            try db.check(result, sql)
            let found = Int(String(cString: PQgetvalue(result, 0, 0))) ?? -1
            try expect(found == count, "\(found) invoices have the new notes, expected \(count)")
        }
    }

    func remove(_ location: String) {
        guard let name = databases.removeValue(forKey: location) else { return }
        do { try admin.execute("DROP DATABASE IF EXISTS \(name) WITH (FORCE)") } catch { log("warning: \(error)") }
    }

    func removeAll() {
        for location in Array(databases.keys) { remove(location) }
    }

    private func withConnection(_ location: String, _ body: (LibPQConnection) throws -> Void) throws {
        let db = try LibPQConnection(location)
        defer { db.close() }
        do {
            try body(db)
        } catch {
            throw HarnessError("check of \(location): \(error)")
        }
    }

    private func expect(_ condition: Bool, _ message: @autoclosure () -> String) throws {
        if !condition { throw HarnessError(message()) }
    }
}
