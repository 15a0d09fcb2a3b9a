import Foundation
import ObjectGraph
import WebServer

/// The Invoices dashboard: the web layer's rooms over an ``InvoicesStack``, each handling its
/// routes with only what it needs (see ARCHITECTURE.md, "The web layer"):
///
/// - ``ReadPages`` (`Web/Pages`): lists and detail pages, their JSON twins, the CSV export;
/// - ``FormRoutes``, ``SetAsideRoutes``, ``DeleteRoutes`` (`Web/Forms`): edit forms of every
///   editable entity, set-aside changes, deletes;
/// - ``ImportRoutes`` (`Web/Import`), ``InspectorRoutes`` (`Web/Inspector`), ``DocsRoutes``
///   (`Web/Docs`).
///
/// Per-request state (the visitor's session, the CSRF check) is middleware's
/// (`Web/Sessions`), run once per route group before the handler.
///
/// `Sendable`: every property is immutable and `Sendable`.
public final class Dashboard: Sendable {
    let stack: InvoicesStack
    let sessions: SessionStore
    let renderer: PageRenderer
    let catalog: FormCatalog
    /// The imports started from the upload page.
    let imports = ImportJobs()
    /// The live context inspector (`/contexts`), also the source of the docs' live figures.
    let inspector: Inspector
    /// Read pages already rendered, served again while their data is unchanged.
    let keptPages: KeptPages
    /// Which server this is, among those sharing the database.
    public let serverName = ServerName()

    /// - Parameters:
    ///   - templatesDirectory: the folder of the `.mustache` files (the repository's `Templates/`).
    ///   - idleTimeout: how long an unused session (and its open forms) lives.
    ///   - today: the day "overdue" is decided against; nil for the real today.
    ///   - listeningHost, inspectorToken: the inspector needs the token unless the server
    ///     listens on loopback only (see ``InspectorAccess``).
    /// - Throws: `TemplateRenderer.Error` when the templates cannot be read, ``StoreError``
    ///   when the store cannot hold sessions.
    public convenience init(stack: InvoicesStack, templatesDirectory: String, idleTimeout: Duration = .seconds(30 * 60),
                            maximumFormsPerSession: Int = 20, today: CalendarDay? = nil,
                            listeningHost: String = "127.0.0.1", inspectorToken: String? = nil) throws {
        try self.init(stack: stack, templatesDirectory: templatesDirectory, idleTimeout: idleTimeout,
                      sessionLimits: SessionLimits(formsPerSession: maximumFormsPerSession), today: today,
                      listeningHost: listeningHost,
                      inspectorToken: inspectorToken, editable: Self.editable, timekeeper: .continuous)
    }

    /// The entities edited in forms.
    static let editable: [any EditableEntity.Type] = [Client.self, Invoice.self, Payment.self]

    /// - Parameters:
    ///   - editable: the entities edited in forms (their field tables); every one must be in the
    ///     stack's model.
    ///   - timekeeper: the clock of session expiry and the inspector's delays.
    init(stack: InvoicesStack, templatesDirectory: String, idleTimeout: Duration, sessionLimits: SessionLimits,
         today: CalendarDay?, listeningHost: String, inspectorToken: String?, editable: [any EditableEntity.Type],
         timekeeper: Timekeeper) throws {
        self.stack = stack
        sessions = SessionStore(idleTimeout: idleTimeout, limits: sessionLimits, timekeeper: timekeeper,
                                stored: try StoredSessions(coordinator: stack.coordinator))
        renderer = PageRenderer(templates: try TemplateRenderer(directory: templatesDirectory), sessions: sessions)
        catalog = FormCatalog(editable, model: stack.coordinator.model)
        inspector = Inspector(stack: stack, sessions: sessions, persist: stack.persistMode,
                              access: InspectorAccess(host: listeningHost, token: inspectorToken))
        keptPages = KeptPages(stack: stack, renderer: renderer, cache: PageCache<ReadPageKey>(), fixedToday: today)
    }

    /// A router with every page of the dashboard, and the files of `publicDirectory` under `/static`.
    public func makeRouter(publicDirectory: String) throws -> Router {
        let router = Router()
        router.serveFiles(at: "/static", from: try StaticFiles(directory: publicDirectory))
        ReadPages(stack: stack, renderer: renderer, kept: keptPages, catalog: catalog).addRoutes(to: router)
        HistoryPages(stack: stack, renderer: renderer, catalog: catalog).addRoutes(to: router)
        let forms = FormRoutes(stack: stack, renderer: renderer, sessions: sessions, catalog: catalog,
                               recorder: inspector.recorder)
        forms.addRoutes(to: router)
        SetAsideRoutes(forms: forms).addRoutes(to: router)
        DeleteRoutes(stack: stack, renderer: renderer, sessions: sessions, catalog: catalog).addRoutes(to: router)
        ImportRoutes(stack: stack, renderer: renderer, jobs: imports).addRoutes(to: router)
        InspectorRoutes(inspector: inspector, renderer: renderer, stack: stack).addRoutes(to: router)
        DocsRoutes(inspector: inspector, renderer: renderer).addRoutes(to: router)
        return router
    }
}
