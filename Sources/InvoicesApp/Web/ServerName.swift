import Synchronization

/// The name a server goes by in the inspector, its logs and the history of its commits
/// (`invoices serve --name`, else its host and port). Several servers on one PostgreSQL
/// database tell themselves apart by it, so each also keeps its place in the history under it.
///
/// `Sendable`: the name is behind a mutex; it is set once the port is known.
public final class ServerName: Sendable {
    private let name = Mutex("dashboard")

    init() {}

    /// The name now.
    public var value: String { name.withLock { $0 } }

    func set(_ value: String) { name.withLock { $0 = value } }
}
