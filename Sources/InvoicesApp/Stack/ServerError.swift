/// Why the server stopped or could not start.
public enum ServerError: Error, Sendable, CustomStringConvertible {
    /// The database could not be opened.
    case stack(StackError)
    /// The demo data could not be written.
    case seeding(String)
    /// The `Templates/` and `Public/` folders were not found.
    case resourcesNotFound
    /// The server could not start (port taken, bad host, unreadable templates).
    case cannotServe(String)
    /// The server stopped, but acknowledged changes did not reach the file.
    case changesNotOnDisk([String])

    public var description: String {
        switch self {
        case .stack(let error):
            return error.description
        case .resourcesNotFound:
            return "The dashboard's Templates/ and Public/ folders were not found. Run from the repository's folder, "
                + "or set INVOICES_RESOURCES to the folder that holds them."
        case .cannotServe(let reason):
            return "The dashboard cannot be served: \(reason)"
        case .changesNotOnDisk(let changes):
            return "Stopped, but \(changes.count) acknowledged change(s) are NOT on disk:\n"
                + changes.map { "  - \($0)" }.joined(separator: "\n")
        case .seeding(let reason):
            return "The demo data could not be written: \(reason). Start with --no-demo-data, or use another --db."
        }
    }
}
