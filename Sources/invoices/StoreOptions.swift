import ArgumentParser
import Foundation
import InvoicesApp

/// `--db FILE` or `--store URL`: where `serve` and `import` find the data. One or the other;
/// without either, the SQLite file `invoices.sqlite`.
struct StoreOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The SQLite database file, created if missing (default: invoices.sqlite).",
                                            valueName: "FILE"))
    var db: String?

    @Option(name: .long, help: ArgumentHelp("A PostgreSQL database shared by several servers, instead of --db.",
                                            valueName: "postgresql://USER@HOST:PORT/DBNAME"))
    var store: String?

    static let defaultFile = "invoices.sqlite"

    func validate() throws {
        if db != nil && store != nil {
            throw ValidationError("Give either --db FILE (SQLite) or --store URL (PostgreSQL), not both.")
        }
        if let db, db.isEmpty { throw ValidationError("--db must name a file, e.g. --db invoices.sqlite.") }
        if let store {
            do { _ = try StoreLocation(storeArgument: store) } catch { throw ValidationError("--store: \(error)") }
        }
    }

    /// The store the options name (checked in ``validate()``).
    var location: StoreLocation {
        if let store, let location = try? StoreLocation(storeArgument: store) { return location }
        return .sqlite(URL(fileURLWithPath: db ?? Self.defaultFile))
    }
}
