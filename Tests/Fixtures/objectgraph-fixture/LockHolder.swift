import CSQLite
import Foundation

/// Holds an SQLite database locked from this process, the way another program (a backup
/// tool, the sqlite3 shell, a second app instance) would.
///
/// In WAL mode a writer never blocks readers, so `BEGIN EXCLUSIVE` alone would not stop
/// another process from opening the store. `PRAGMA locking_mode = EXCLUSIVE` makes the
/// connection keep the file's exclusive lock from its first write transaction until it
/// ends, which shuts every other connection out, readers included.
enum LockHolder {
    /// - Parameter writeOnly: hold only the WAL write lock (`BEGIN IMMEDIATE`, as another
    ///   process in the middle of a save does): other writers wait, readers read on.
    static func hold(path: String, atMost seconds: Double, writeOnly: Bool = false) -> Never {
        var db: OpaquePointer?
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK, let db else {
            fail("cannot open \(path)")
        }
        var message: UnsafeMutablePointer<CChar>?
        let sql = writeOnly ? "BEGIN IMMEDIATE;" : "PRAGMA locking_mode = EXCLUSIVE; BEGIN EXCLUSIVE;"
        guard sqlite3_exec(db, sql, nil, nil, &message) == SQLITE_OK else {
            fail("cannot lock \(path): \(message.map { String(cString: $0) } ?? "?")")
        }
        print("locked")
        fflush(nil)  // all streams: `stdout` itself is not concurrency-safe to name

        // The lock goes when the process ends, whichever comes first: the test closing our
        // stdin, or the time limit (so a test that dies early cannot leave us running).
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds) {
            print("time limit reached")
            exit(0)
        }
        _ = FileHandle.standardInput.readDataToEndOfFile()
        sqlite3_exec(db, "COMMIT", nil, nil, nil)
        sqlite3_close(db)
        print("released")
        exit(0)
    }

    private static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("hold-lock: \(message)\n".utf8))
        exit(1)
    }
}
