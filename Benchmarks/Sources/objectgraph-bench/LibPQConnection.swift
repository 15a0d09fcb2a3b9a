import CLibPQBench
import Foundation

// A deliberately thin layer over libpq: connecting, simple queries, prepared statements and
// errors, for the raw libpq workload and the harness's own checks of PostgreSQL databases.
// Hot loops call PQ* directly. (This file and the raw workload import CLibPQBench, never
// ObjectGraphPostgreSQL, whose CLibPQ module declares the same C symbols.)

struct LibPQError: Error, CustomStringConvertible {
    let description: String
}

final class LibPQConnection {
    let handle: OpaquePointer
    private var isClosed = false

    init(_ conninfo: String) throws {
        guard let connection = PQconnectdb(conninfo) else { throw LibPQError(description: "libpq: out of memory") }
        guard PQstatus(connection) == CONNECTION_OK else {
            let message = String(cString: PQerrorMessage(connection))
            PQfinish(connection)
            throw LibPQError(description: "cannot connect to \(conninfo): \(message)")
        }
        handle = connection
        try execute("SET client_min_messages TO warning")  // No NOTICE for a DROP … IF EXISTS.
    }

    deinit { close() }

    func close() {
        guard !isClosed else { return }
        isClosed = true
        PQfinish(handle)
    }

    /// Runs `sql` (one or more statements, simple query protocol); throws on an error.
    func execute(_ sql: String) throws {
        let result = PQexec(handle, sql)
        defer { PQclear(result) }
        try check(result, sql)
    }

    /// The first column of the first row of `sql`, as text.
    func scalar(_ sql: String) throws -> String? {
        let result = PQexec(handle, sql)
        defer { PQclear(result) }
        try check(result, sql)
        guard PQntuples(result) > 0, PQgetisnull(result, 0, 0) == 0 else { return nil }
        return String(cString: PQgetvalue(result, 0, 0))
    }

    func scalarInt(_ sql: String) throws -> Int { Int(try scalar(sql) ?? "") ?? -1 }

    /// Prepares a named statement; `types` are the parameters' type OIDs (`int8`, …).
    func prepare(_ name: String, _ sql: String, types: [Oid]) throws {
        let result = PQprepare(handle, name, sql, Int32(types.count), types)
        defer { PQclear(result) }
        try check(result, sql)
    }

    /// Throws unless `result` reports success (a command, rows, a COPY in progress or a
    /// pipeline's sync).
    func check(_ result: OpaquePointer?, _ what: String) throws {
        switch result.map(PQresultStatus) {
        case PGRES_COMMAND_OK?, PGRES_TUPLES_OK?, PGRES_COPY_IN?, PGRES_PIPELINE_SYNC?: return
        default:
            let message = result.map { String(cString: PQresultErrorMessage($0)) } ?? String(cString: PQerrorMessage(handle))
            throw LibPQError(description: "\(what): \(message)")
        }
    }

    /// Every result of the query just sent, until libpq's NULL, each checked.
    func drainResults(_ what: String) throws {
        var failure: LibPQError?
        while let result = PQgetResult(handle) {
            do { try check(result, what) } catch let error as LibPQError { failure = failure ?? error }
            PQclear(result)
        }
        if let failure { throw failure }
    }
}

/// Type OIDs of the parameters the workloads bind (pg_type.h).
enum PGType {
    static let int8: Oid = 20
    static let float8: Oid = 701
    static let text: Oid = 25
}

/// Binary values in network byte order, as libpq's binary format wants them.
enum PGBinary {
    @inline(__always)
    static func int64(_ result: OpaquePointer, _ row: Int32, _ column: Int32) -> Int64 {
        Int64(bigEndian: UnsafeRawPointer(PQgetvalue(result, row, column)!).loadUnaligned(as: Int64.self))
    }

    @inline(__always)
    static func double(_ result: OpaquePointer, _ row: Int32, _ column: Int32) -> Double {
        Double(bitPattern: UInt64(bigEndian: UnsafeRawPointer(PQgetvalue(result, row, column)!).loadUnaligned(as: UInt64.self)))
    }

    @inline(__always)
    static func text(_ result: OpaquePointer, _ row: Int32, _ column: Int32) -> String? {
        guard PQgetisnull(result, row, column) == 0, let value = PQgetvalue(result, row, column) else { return nil }
        let length = Int(PQgetlength(result, row, column))
        return value.withMemoryRebound(to: UInt8.self, capacity: length) {
            String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self)
        }
    }
}
