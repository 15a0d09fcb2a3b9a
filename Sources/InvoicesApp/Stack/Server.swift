import Foundation
import ObjectGraph

/// The Invoices web server.
public enum Server {
    /// Opens the stack and, unless told not to, fills an empty database with demo data:
    /// what `serve` does before it listens.
    /// - Returns: the stack and whether demo data was inserted.
    public static func prepare(_ configuration: ServerConfiguration) async throws(ServerError) -> (InvoicesStack, seeded: Bool) {
        let stack: InvoicesStack
        do { stack = try InvoicesStack(storeURL: configuration.databaseURL) } catch { throw .stack(error) }
        var seeded = false
        if configuration.seedsDemoData {
            do { seeded = try await stack.seedDemoDataIfEmpty() } catch { throw .seeding("\(error)") }
        }
        return (stack, seeded)
    }

    /// Serves the dashboard until SIGINT or SIGTERM.
    ///
    /// TODO(lead): this is a stub until the WebServer module and the pages land. It prepares
    /// the stack (so `invoices serve` already creates and seeds the database), then fails
    /// with ``ServerError/pagesNotAvailable(url:)``. Replace the body after `prepare` with
    /// the real server; the command line does not change.
    public static func run(_ configuration: ServerConfiguration,
                           log: @Sendable (String) -> Void = { print($0) }) async throws(ServerError) {
        let (stack, seeded) = try await prepare(configuration)
        log("Database: \(configuration.databaseURL.path)" + (seeded ? " (filled with demo data)" : ""))
        log("Persistence: \(configuration.persist)")
        let counts = try? await stack.main.perform { () throws -> (Int, Int) in
            (try stack.main.count(for: FetchRequest<Client>()), try stack.main.count(for: FetchRequest<Invoice>()))
        }
        if let counts { log("Data: \(counts.0) clients, \(counts.1) invoices") }
        log("Would serve \(configuration.baseURL)/clients"
            + (configuration.inspectorToken != nil ? " (inspector protected by a token)" : ""))
        throw .pagesNotAvailable(url: configuration.baseURL)
    }
}
