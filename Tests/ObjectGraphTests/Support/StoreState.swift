import Foundation
import Testing
import TestSupport
@testable import ObjectGraph
@testable import ObjectGraphPostgreSQL

/// Everything a store holds, to check that a refused open wrote nothing: an SQLite file's
/// bytes (and its WAL's), or a PostgreSQL schema's tables, columns, indexes and every row.
enum StoreState: Equatable, CustomStringConvertible {
    case file(StoreFileState)
    /// A checkpointed file's bytes alone (opening and closing moves its WAL's times).
    case bytes(Data)
    case database(String)

    /// What the store holds: a closed file's bytes (no WAL, no times), or the database.
    static func contents(of location: StoreLocation) throws -> StoreState {
        guard location.store.kind == .sqliteFile, let url = location.url else { return try StoreState(of: location) }
        return .bytes(try Data(contentsOf: url))
    }

    init(of location: StoreLocation) throws {
        switch location.store.kind {
        case .sqliteFile:
            guard let url = location.url else { throw StoreLocation.NotShared(store: location.store) }
            self = .file(try StoreFileState(of: url))
        case .inMemory:
            throw StoreLocation.NotShared(store: location.store)
        case .postgreSQL:
            self = .database(try Self.dump(try location.connection()))
        }
    }

    var description: String {
        switch self {
        case .file(let state): state.description
        case .bytes(let data): "\(data.count) bytes"
        case .database(let dump): dump
        }
    }

    private static func dump(_ db: PostgreSQLConnection) throws -> String {
        func lines(_ sql: SQLFragment) throws -> [String] {
            let result = try db.query(sql)
            return (0..<result.rowCount).map { result.text($0, 0) ?? "NULL" }
        }
        var dump = try lines("""
            SELECT table_name || '.' || column_name || ' ' || data_type FROM information_schema.columns
            WHERE table_schema = current_schema() ORDER BY table_name, column_name
            """)
        dump += try lines("SELECT indexdef FROM pg_indexes WHERE schemaname = current_schema() ORDER BY indexname")
        for table in try lines("SELECT tablename FROM pg_tables WHERE schemaname = current_schema() ORDER BY tablename") {
            dump += try lines("SELECT \(.string(table + ": ")) || t::text FROM \(raw: SQLDialect.quote(table)) t ORDER BY t::text")
        }
        return dump.joined(separator: "\n")
    }
}

extension StoreLocation {
    /// A connection of the test's own to the location's PostgreSQL schema.
    func connection() throws -> PostgreSQLConnection {
        try PostgreSQLConnection(conninfo: try PostgreSQLServer.shared.get().url(), location: "test",
                                 sessionSetup: "SET client_min_messages TO warning; SET search_path TO \(SQLDialect.quote(schema))")
    }

    /// Runs `sql` on the store behind ObjectGraph's back.
    func execute(_ sql: String) throws {
        switch store.kind {
        case .postgreSQL: try connection().execute(sql)
        default:
            guard let url else { throw NotShared(store: store) }
            try SQLiteFile.execute(sql, at: url)
        }
    }

    /// The columns of `table`, in order, as the store holds them.
    func columns(of table: String) throws -> [String] {
        switch store.kind {
        case .postgreSQL:
            let result = try connection().query("""
                SELECT column_name FROM information_schema.columns
                WHERE table_schema = current_schema() AND table_name = \(.string(table)) ORDER BY ordinal_position
                """)
            return (0..<result.rowCount).compactMap { result.text($0, 0) }
        default:
            guard let url else { throw NotShared(store: store) }
            return try SQLiteFile.columns(of: table, at: url)
        }
    }

    /// The names of the store's indexes.
    func indexNames() throws -> Set<String> {
        switch store.kind {
        case .postgreSQL:
            let result = try connection().query("SELECT indexname FROM pg_indexes WHERE schemaname = current_schema()")
            return Set((0..<result.rowCount).compactMap { result.text($0, 0) })
        default:
            guard let url else { throw NotShared(store: store) }
            return Set(try SQLiteFile.strings("SELECT name FROM sqlite_master WHERE type = 'index'", at: url))
        }
    }
}
