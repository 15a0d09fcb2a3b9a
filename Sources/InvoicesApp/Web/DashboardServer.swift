import Foundation
import Logging
import ObjectGraph
import WebServer

/// The dashboard listening on a port: what `invoices serve` runs and what tests start on
/// port 0. ``stop()`` stops the server, then flushes the writer to disk and says what is not
/// on disk.
public final class DashboardServer: Sendable {
    public let stack: InvoicesStack
    public let dashboard: Dashboard
    let server: HTTPServer
    let logger: Logger

    /// The largest request body any route reads: a CSV upload (``ImportRoutes``). Each route
    /// group has a smaller limit of its own (edit forms 64 KB), checked before a body is read.
    public static let maximumBodySize = ImportRoutes.maximumUploadSize

    /// Starts serving `stack` on `host`:`port` (0 for any free port).
    /// - Throws: `HTTPServer.Error` when the port cannot be used, `TemplateRenderer.Error` or
    ///   `StaticFiles.Error` when the resources are missing.
    public convenience init(stack: InvoicesStack, host: String, port: Int, resources: DashboardResources,
                            today: CalendarDay? = nil, inspectorToken: String? = nil,
                            hostPolicy: HostPolicy = DashboardServer.hostPolicy(),
                            logger: Logger = Logger(label: "invoices"), name: String? = nil) throws {
        try self.init(stack: stack, host: host, port: port, resources: resources, today: today,
                      inspectorToken: inspectorToken, logger: logger, editable: Dashboard.editable, timekeeper: .continuous,
                      hostPolicy: hostPolicy, name: name)
    }

    /// Which `Host` names are answered: loopback names and IP literals, plus `allowedHosts`;
    /// a page on any other name is refused (421), so DNS rebinding cannot reach the dashboard.
    public static func hostPolicy(allowedHosts: [String] = [], trustedProxies: [String] = []) -> HostPolicy {
        HostPolicy(allowedNames: allowedHosts, trustedProxies: trustedProxies,
                   refusalHint: "To serve the dashboard under this name, start it with "
                    + "invoices serve --allowed-host NAME.")
    }

    /// - Parameters:
    ///   - editable: the entities edited in forms.
    ///   - timekeeper: the clock of session expiry and the inspector's delays.
    ///   - sessionLimits: how many sessions and open forms the server holds at most.
    ///   - hostPolicy: the `Host` names answered and the trusted proxies.
    ///   - name: the server's name (``ServerName``); nil: host:port.
    init(stack: InvoicesStack, host: String, port: Int, resources: DashboardResources, today: CalendarDay?,
         inspectorToken: String?, logger: Logger, editable: [any EditableEntity.Type], timekeeper: Timekeeper,
         sessionLimits: SessionLimits = SessionLimits(), hostPolicy: HostPolicy = DashboardServer.hostPolicy(),
         name: String? = nil) throws {
        self.stack = stack
        var logger = logger.escapingControlCharacters()
        if let name { logger[metadataKey: "server"] = "\(name)" }
        self.logger = logger
        dashboard = try Dashboard(stack: stack, templatesDirectory: resources.templates, idleTimeout: .seconds(30 * 60),
                                  sessionLimits: sessionLimits, today: today, listeningHost: host,
                                  inspectorToken: inspectorToken, editable: editable, timekeeper: timekeeper)
        let router = try dashboard.makeRouter(publicDirectory: resources.public)
        var configuration = HTTPServer.Configuration(host: host, port: port)
        configuration.limits.maximumBodySize = Self.maximumBodySize
        configuration.hostPolicy = hostPolicy
        let errorPages = ErrorPages(renderer: dashboard.renderer)
        configuration.errorPages = { error, path in errorPages.response(for: error, path: path) }
        // A database that is down or restarting: 503 with the reason, not 500.
        configuration.classifiesErrors = { StoreOutage.httpError(for: $0) }
        server = HTTPServer(configuration: configuration, router: router, logger: self.logger)
        try server.start()
        let shownHost = host.contains(":") ? "[\(host)]" : host
        let serverName = name ?? "\(shownHost):\(server.port)"
        dashboard.serverName.set(serverName)
        // Other processes' commits (an `invoices import`, other servers) merge into writer and
        // main. On PostgreSQL every server keeps its own place in the history, under its name;
        // the one server of an SQLite file keeps the name its files have always had.
        let consumer = if case .postgreSQL = stack.store { serverName } else { "dashboard" }
        do { try stack.startMergingRemoteChanges(as: consumer) } catch {
            self.logger.warning("Remote changes will not be merged: \(error)")
        }
    }

    /// The port the server listens on.
    public var port: Int { server.port }

    /// Stops accepting requests, lets those in flight finish, then writes what the writer
    /// still holds to disk.
    /// - Returns: every acknowledged change that is not on disk (set aside after a conflict,
    ///   or left in the writer because the file refused it), each logged; empty when all
    ///   changes are on disk.
    @discardableResult
    public func stop() async -> [String] {
        await server.shutdown(timeout: .seconds(5))
        stack.stopMergingRemoteChanges()
        dashboard.inspector.stop()
        let notOnDisk = await stack.stopPersisting()
        for change in notOnDisk { logger.error("Not on disk: \(change)") }
        return notOnDisk
    }
}

/// Where the dashboard's templates and static files are.
public struct DashboardResources: Sendable, Hashable {
    public var templates: String
    public var `public`: String

    public init(templates: String, public: String) {
        self.templates = templates
        self.public = `public`
    }

    /// The `Templates/` and `Public/` folders of the repository: from `$INVOICES_RESOURCES`,
    /// else the current folder or one of its parents, else the folders above the executable
    /// (`.build/debug/invoices`), else the source tree this file was built from.
    public static func locate() -> DashboardResources? {
        var candidates: [URL] = []
        if let root = ProcessInfo.processInfo.environment["INVOICES_RESOURCES"] {
            candidates.append(URL(fileURLWithPath: root))
        }
        var folder = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        for _ in 0..<4 { candidates.append(folder); folder.deleteLastPathComponent() }
        var executable = URL(fileURLWithPath: CommandLine.arguments.first ?? "").resolvingSymlinksInPath()
        for _ in 0..<5 { executable.deleteLastPathComponent(); candidates.append(executable) }
        // Sources/InvoicesApp/Web/DashboardServer.swift → the repository.
        var source = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { source.deleteLastPathComponent() }
        candidates.append(source)
        for root in candidates {
            let templates = root.appendingPathComponent("Templates").path
            let files = root.appendingPathComponent("Public").path
            if FileManager.default.fileExists(atPath: templates + "/layout.mustache") {
                return DashboardResources(templates: templates, public: files)
            }
        }
        return nil
    }
}
