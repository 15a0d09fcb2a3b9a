import CSQLiteBench
import Foundation

/// Raw SQLite at its best: one read-only connection, statements prepared once and reused,
/// values read with `sqlite3_column_*`.
final class RawSQLite {
    private let db: OpaquePointer
    private var statements: [String: OpaquePointer] = [:]

    init(path: String) throws {
        var handle: OpaquePointer?
        guard sqlite3_open_v2(path, &handle, SQLITE_OPEN_READONLY, nil) == SQLITE_OK, let handle else {
            throw BenchError("cannot open \(path)")
        }
        db = handle
    }

    deinit {
        for statement in statements.values { sqlite3_finalize(statement) }
        sqlite3_close(db)
    }

    /// Runs `sql` with one text parameter and reads every row's first column as a key and,
    /// when there is one, its second as text. Returns the number of rows.
    func run(_ sql: String, binding text: String) throws -> Int {
        let statement = try prepared(sql)
        defer { sqlite3_reset(statement) }
        sqlite3_bind_text(statement, 1, text, -1, csqlitebench_transient())
        var rows = 0
        var checksum: Int64 = 0
        let columns = sqlite3_column_count(statement)
        while true {
            let rc = sqlite3_step(statement)
            if rc == SQLITE_DONE { break }
            guard rc == SQLITE_ROW else { throw BenchError("step: \(String(cString: sqlite3_errmsg(db)))") }
            checksum &+= sqlite3_column_int64(statement, 0)
            if columns > 1 { checksum &+= Int64(sqlite3_column_bytes(statement, 1)) }
            rows += 1
        }
        if checksum == .min { print("") }    // keeps the reads from being optimised away
        return rows
    }

    private func prepared(_ sql: String) throws -> OpaquePointer {
        if let statement = statements[sql] { return statement }
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            throw BenchError("prepare: \(String(cString: sqlite3_errmsg(db)))")
        }
        statements[sql] = statement
        return statement
    }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

func monotonicNanoseconds() -> Int64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    return sorted.count.isMultiple(of: 2) ? (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2 : sorted[sorted.count / 2]
}

func format(_ value: Double, _ digits: Int = 2) -> String { String(format: "%.\(digits)f", value) }

extension String {
    func leftPad(_ width: Int) -> String { count >= width ? self : String(repeating: " ", count: width - count) + self }
    func rightPad(_ width: Int) -> String { count >= width ? self : self + String(repeating: " ", count: width - count) }
}
