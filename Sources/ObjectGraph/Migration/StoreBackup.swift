import CSQLite
import Foundation

/// The copy of a store a migration makes before it changes anything: `<file>.v<version>-backup`
/// next to the file (`invoices.sqlite.v1-backup`), a complete store of the old version.
///
/// The copy is made with SQLite's online backup API from a connection of its own, while the
/// migration holds the write lock: no one can write meanwhile, and readers go on reading. It
/// is written under a `.partial` name and renamed when complete, so a crash never leaves a
/// half copy under the backup's name. An earlier backup of the same version is replaced.
enum StoreBackup {
    static func write(of path: String, version: Int, busyTimeout: TimeInterval, vfs: String?) throws -> URL {
        let target = path + ".v\(version)-backup", partial = target + ".partial"
        do {
            if FileManager.default.fileExists(atPath: partial) { try FileManager.default.removeItem(atPath: partial) }
            try copy(from: path, to: partial, naming: target, busyTimeout: busyTimeout, vfs: vfs)
            // rename(2) replaces an earlier backup in one step, and refuses to replace
            // anything but a file.
            if rename(partial, target) != 0 {
                throw MigrationError.backupFailed(path: target, reason: String(cString: strerror(errno)))
            }
        } catch {
            // Already failing: a half copy left behind is replaced by the next attempt.
            try? FileManager.default.removeItem(atPath: partial)
            if let error = error as? MigrationError { throw error }
            throw MigrationError.backupFailed(path: target, reason: String(describing: error))
        }
        return URL(fileURLWithPath: target)
    }

    private static func copy(from path: String, to partial: String, naming target: String, busyTimeout: TimeInterval,
                             vfs: String?) throws {
        let source = try SQLiteConnection(path: path, readOnly: true, create: false, busyTimeout: busyTimeout, vfs: vfs)
        let destination = try SQLiteConnection(path: partial, readOnly: false, create: true, busyTimeout: busyTimeout, vfs: vfs)
        guard let backup = sqlite3_backup_init(destination.handle, "main", source.handle, "main") else {
            throw MigrationError.backupFailed(path: target, reason: String(cString: sqlite3_errmsg(destination.handle)))
        }
        let stepped = sqlite3_backup_step(backup, -1)
        let finished = sqlite3_backup_finish(backup)
        guard stepped == SQLITE_DONE, finished == SQLITE_OK else {
            throw MigrationError.backupFailed(path: target, reason: String(cString: sqlite3_errstr(stepped == SQLITE_DONE ? finished : stepped)))
        }
    }
}
