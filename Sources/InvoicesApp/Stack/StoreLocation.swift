import Foundation

/// Where the Invoices data lives: one SQLite file (the embedded default), a PostgreSQL
/// database that several servers share, or memory (tests and previews).
public enum StoreLocation: Sendable, Hashable, CustomStringConvertible {
    /// An SQLite file, created when missing (`--db FILE`).
    case sqlite(URL)
    /// A PostgreSQL database (`--store postgresql://USER@HOST:PORT/DBNAME`), as a libpq URI.
    case postgreSQL(url: String)
    /// An in-memory store, this process's alone.
    case inMemory

    /// Reads a `--store` argument: a `postgresql://` (or `postgres://`) URI naming a host and a
    /// database.
    /// - Throws: ``StoreLocationError`` saying what is missing.
    public init(storeArgument text: String) throws(StoreLocationError) {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased() else {
            throw .notAURL(text)
        }
        guard scheme == "postgresql" || scheme == "postgres" else { throw .unsupportedScheme(scheme) }
        guard let host = components.host, !host.isEmpty else { throw .missingHost(text) }
        let database = components.path.drop { $0 == "/" }
        guard !database.isEmpty, !database.contains("/") else { throw .missingDatabase(text) }
        self = .postgreSQL(url: text)
    }

    /// Whether other processes or servers may write to the store too: only then are their
    /// commits merged from history.
    public var isShared: Bool {
        if case .inMemory = self { false } else { true }
    }

    /// The file's URL of an SQLite store.
    public var fileURL: URL? {
        if case .sqlite(let url) = self { url } else { nil }
    }

    /// For messages and logs: a file's path, or the URI without its password.
    public var description: String {
        switch self {
        case .sqlite(let url): return url.path
        case .inMemory: return ":memory:"
        case .postgreSQL(let url):
            guard var components = URLComponents(string: url) else { return "the PostgreSQL server" }
            if components.password != nil { components.password = "***" }
            return components.string ?? "the PostgreSQL server"
        }
    }
}

/// Why a `--store` argument cannot be used.
public enum StoreLocationError: Error, Sendable, Hashable, CustomStringConvertible {
    case notAURL(String)
    case unsupportedScheme(String)
    case missingHost(String)
    case missingDatabase(String)

    public var description: String {
        let example = "e.g. --store postgresql://invoices@127.0.0.1:5432/invoices"
        switch self {
        case .notAURL(let text):
            return "\"\(text)\" is not a URL; give a PostgreSQL URL, \(example)."
        case .unsupportedScheme(let scheme):
            return "--store takes a postgresql:// URL (got \(scheme)://); for an SQLite file use --db FILE, or \(example)."
        case .missingHost:
            return "The --store URL names no host; \(example)."
        case .missingDatabase:
            return "The --store URL names no database (the path after the port); \(example)."
        }
    }
}
