import Foundation
import Logging
import Synchronization

/// The repository's Public/ folder.
let publicDirectory = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Public").path

/// A fresh temporary directory holding `files` (relative path → contents), removed by the caller.
func makeDirectory(_ files: [String: String]) throws -> URL {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("webserver-tests-\(UUID().uuidString)")
    for (path, contents) in files {
        let url = root.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(contents.utf8).write(to: url)
    }
    return root
}

/// A log handler that keeps the lines, to check what the server logs.
struct CapturingLogHandler: LogHandler {
    final class Lines: Sendable {
        let lines = Mutex<[String]>([])
        var all: [String] { lines.withLock { $0 } }
    }
    let store: Lines
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .info

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let fields = (event.metadata ?? [:]).map { "\($0.key)=\($0.value)" }.sorted().joined(separator: " ")
        store.lines.withLock { $0.append("\(event.level) \(event.message) \(fields)") }
    }

    static func logger() -> (Logger, Lines) {
        let lines = Lines()
        return (Logger(label: "test") { _ in CapturingLogHandler(store: lines) }, lines)
    }
}
