/// The Invoices application: its domain (`Domain/`: entities, money, read models, queries,
/// demo data), CSV import (`Import/`), and the context stack and server entry points
/// (`Stack/`). The `invoices` command line drives it.
public enum InvoicesApp {
    /// Shown by `invoices --version`.
    public static let version = "0.1.0"
}
