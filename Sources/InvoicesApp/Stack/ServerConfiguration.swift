import Foundation

/// What `invoices serve` was asked to do.
public struct ServerConfiguration: Sendable, Hashable {
    /// Where the data lives (`--db FILE` or `--store URL`).
    public var store: StoreLocation
    public var host: String
    /// 0 asks the system for a free port (tests).
    public var port: Int
    public var persist: PersistMode
    /// How long a write waits for another process's lock before a save answers "busy".
    public var busyTimeout: TimeInterval
    /// Whether an empty database gets the demo data.
    public var seedsDemoData: Bool
    /// When set, the live inspector (`/contexts`) needs this token.
    public var inspectorToken: String?
    /// Names answered besides loopback names and IP literals (`--allowed-host`); a leading dot
    /// allows a domain and every name under it.
    public var allowedHosts: [String]
    /// Reverse proxies whose `X-Forwarded-*` headers are believed (`--trusted-proxy`).
    public var trustedProxies: [String]
    /// How invoices are numbered when they leave draft (`--number-format`).
    public var numbering = InvoiceNumbering()
    /// The server's name in the inspector, the logs and the history of what it commits
    /// (`--name`); nil: its host and port.
    public var name: String?

    /// A server on an SQLite file.
    public init(databaseURL: URL, host: String = "127.0.0.1", port: Int = 8080, persist: PersistMode = .immediate,
                busyTimeout: TimeInterval = 5, seedsDemoData: Bool = true, inspectorToken: String? = nil,
                allowedHosts: [String] = [], trustedProxies: [String] = []) {
        self.init(store: .sqlite(databaseURL), host: host, port: port, persist: persist, busyTimeout: busyTimeout,
                  seedsDemoData: seedsDemoData, inspectorToken: inspectorToken, allowedHosts: allowedHosts,
                  trustedProxies: trustedProxies)
    }

    public init(store: StoreLocation, host: String = "127.0.0.1", port: Int = 8080, persist: PersistMode = .immediate,
                busyTimeout: TimeInterval = 5, seedsDemoData: Bool = true, inspectorToken: String? = nil,
                allowedHosts: [String] = [], trustedProxies: [String] = []) {
        self.allowedHosts = allowedHosts
        self.trustedProxies = trustedProxies
        self.busyTimeout = busyTimeout
        self.store = store
        self.host = host
        self.port = port
        self.persist = persist
        self.seedsDemoData = seedsDemoData
        self.inspectorToken = inspectorToken
    }

    /// The address pages would be served at.
    public var baseURL: String {
        let shownHost = host.contains(":") ? "[\(host)]" : host
        return "http://\(shownHost):\(port)"
    }
}
