import Foundation

/// Where the engines of a run keep their data, one location per engine per round: SQLite
/// files in a temporary folder, or databases on a PostgreSQL server of the benchmark's own.
/// A location is a string the engines open (a file path, a `postgresql://` URL).
@MainActor
protocol Storage: AnyObject {
    /// A new, empty location for `engine`'s data in `round` (what an earlier run left there is gone).
    func freshLocation(_ engine: String, round: Int, model: String) throws -> String
    /// Checks what an engine claims to have inserted against the location, through a
    /// connection of the harness's own.
    func checkAfterInsert<Model: BenchModel>(_ location: String, dataset: Dataset<Model>) throws
    /// Checks that exactly `count` invoices carry `notes`.
    func checkAfterUpdate(_ location: String, notes: String, count: Int) throws
    /// Removes a location's data.
    func remove(_ location: String)
    /// Removes everything the storage made (its own server stays the caller's to stop).
    func removeAll()
}

/// SQLite files, WAL mode, in a folder of the process's own under the temporary directory.
@MainActor
final class SQLiteStorage: Storage {
    private let directory: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("objectgraph-bench-\(ProcessInfo.processInfo.processIdentifier)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    func freshLocation(_ engine: String, round: Int, model: String) throws -> String {
        let path = directory.appendingPathComponent("\(model)-\(engine)-\(round).sqlite").path
        removeFiles(path)
        return path
    }

    func checkAfterInsert<Model: BenchModel>(_ location: String, dataset: Dataset<Model>) throws {
        try DiskCheck.afterInsert(path: location, dataset: dataset)
    }

    func checkAfterUpdate(_ location: String, notes: String, count: Int) throws {
        try DiskCheck.afterUpdate(path: location, notes: notes, count: count)
    }

    func remove(_ location: String) { removeFiles(location) }

    func removeAll() { try? FileManager.default.removeItem(at: directory) }
}

func removeFiles(_ path: String) {
    for suffix in ["", "-wal", "-shm", "-journal"] {
        try? FileManager.default.removeItem(atPath: path + suffix)
    }
}
