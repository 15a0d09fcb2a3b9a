/// Why the server stopped or could not start.
public enum ServerError: Error, Sendable, CustomStringConvertible {
    /// The web layer (pages, forms, sessions) is not built yet.
    case pagesNotAvailable(url: String)
    /// The database could not be opened.
    case stack(StackError)
    /// The demo data could not be written.
    case seeding(String)

    public var description: String {
        switch self {
        case .pagesNotAvailable(let url):
            return "The database is ready, but the dashboard's pages are not available yet in this build: "
                + "nothing is listening on \(url). Use `invoices import` to load invoices meanwhile."
        case .stack(let error):
            return error.description
        case .seeding(let reason):
            return "The demo data could not be written: \(reason). Start with --no-demo-data, or use another --db."
        }
    }
}
