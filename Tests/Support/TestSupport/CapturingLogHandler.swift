import Logging
import Synchronization

/// A log handler that keeps each event as one string (`level message key=value ...`), to
/// check what a server logs.
public struct CapturingLogHandler: LogHandler {
    /// The events logged so far, in order.
    public final class Lines: Sendable {
        let lines = Mutex<[String]>([])
        public var all: [String] { lines.withLock { $0 } }
    }
    let store: Lines
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .info

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        let fields = (event.metadata ?? [:]).map { "\($0.key)=\($0.value)" }.sorted().joined(separator: " ")
        store.lines.withLock { $0.append("\(event.level) \(event.message) \(fields)") }
    }

    /// A logger whose events land in the returned lines.
    public static func logger() -> (Logger, Lines) {
        let lines = Lines()
        return (Logger(label: "test") { _ in CapturingLogHandler(store: lines) }, lines)
    }
}
