/// When the writer context's changes reach the disk (`--persist`).
public enum PersistMode: Sendable, Hashable, CustomStringConvertible {
    /// Every save goes through to the file before the request answers.
    case immediate
    /// Changes wait in the writer for at most this many seconds (the deferred-save
    /// pattern); SIGINT and SIGTERM flush them before exit.
    case deferred(seconds: Double)

    /// Parses `immediate` or `deferred=SECONDS` (SECONDS > 0, e.g. `deferred=5` or
    /// `deferred=0.5`); nil otherwise.
    public init?(argument: String) {
        let text = argument.trimmingCharacters(in: .whitespaces).lowercased()
        if text == "immediate" { self = .immediate; return }
        guard text.hasPrefix("deferred="), let seconds = Double(text.dropFirst("deferred=".count)),
              seconds.isFinite, seconds > 0, seconds <= 3600 else { return nil }
        self = .deferred(seconds: seconds)
    }

    public var description: String {
        switch self {
        case .immediate: return "immediate"
        case .deferred(let seconds):
            return "deferred=\(seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds))"
        }
    }
}
