import Foundation
import ObjectGraph
import WebServer

/// The Invoices web server.
public enum Server {
    /// Opens the stack and, unless told not to, fills an empty database with demo data:
    /// what `serve` does before it listens.
    /// - Returns: the stack and whether demo data was inserted.
    public static func prepare(_ configuration: ServerConfiguration) async throws(ServerError) -> (InvoicesStack, seeded: Bool) {
        let stack: InvoicesStack
        do {
            stack = try InvoicesStack.open(configuration.store, persist: configuration.persist,
                                           busyTimeout: configuration.busyTimeout)
        } catch {
            throw .stack(error)
        }
        stack.numbering = configuration.numbering
        var seeded = false
        if configuration.seedsDemoData {
            do { seeded = try await stack.seedDemoDataIfEmpty() } catch { throw .seeding("\(error)") }
        }
        return (stack, seeded)
    }

    /// Serves the dashboard until SIGINT or SIGTERM, then stops the server and flushes the
    /// writer to disk.
    /// - Throws: ``ServerError`` when the database, the resources or the port cannot be used,
    ///   and ``ServerError/changesNotOnDisk(_:)`` when acknowledged changes did not reach the
    ///   file by the end.
    public static func run(_ configuration: ServerConfiguration,
                           log: @Sendable (String) -> Void = { print($0) }) async throws(ServerError) {
        let (stack, seeded) = try await prepare(configuration)
        log("Database: \(configuration.store)" + (seeded ? " (filled with demo data)" : ""))
        log("Persistence: \(configuration.persist)")
        let counts = try? await stack.main.perform { () throws -> (Int, Int) in
            (try stack.main.count(for: FetchRequest<Client>()), try stack.main.count(for: FetchRequest<Invoice>()))
        }
        if let counts { log("Data: \(counts.0) clients, \(counts.1) invoices") }
        guard let resources = DashboardResources.locate() else { throw .resourcesNotFound }
        let server: DashboardServer
        do {
            server = try DashboardServer(stack: stack, host: configuration.host, port: configuration.port,
                                         resources: resources,
                                         inspectorToken: configuration.inspectorToken,
                                         hostPolicy: DashboardServer.hostPolicy(
                                            allowedHosts: configuration.allowedHosts,
                                            trustedProxies: configuration.trustedProxies),
                                         idleTimeout: .seconds(configuration.sessionTimeout),
                                         name: configuration.name)
        } catch {
            throw .cannotServe("\(error)")
        }
        log("Server name: \(server.dashboard.serverName.value)")
        log("Serving http://\(configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host):\(server.port)/clients")
        let signal = await HTTPServer.terminationSignal()
        log("Signal \(signal): stopping")
        let notOnDisk = await server.stop()
        guard notOnDisk.isEmpty else { throw .changesNotOnDisk(notOnDisk) }
        // The process exits without closing the store: the WAL is copied into the database
        // file now, so the file alone (a copy, a backup) holds every change. Were that to fail,
        // the changes would still be on disk, in the WAL the next open reads.
        do {
            try stack.coordinator.checkpoint()
        } catch {
            log("Copying the WAL into the database file failed (the changes stay in the WAL): \(error)")
        }
        log("Stopped; all changes are on disk.")
    }
}
