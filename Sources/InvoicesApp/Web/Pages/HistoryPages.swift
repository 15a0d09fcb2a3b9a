import Foundation
import ObjectGraph
import WebServer

/// `/clients/{pk}/history` and `/invoices/{pk}/history`, with their `.json` twins: every saved
/// change of the object, newest first, from persistent history with values (who, when,
/// through which form or import, each field from old to new). Changes by other processes and
/// by batch requests are there as well, and a deleted object's history stays readable.
struct HistoryPages: Sendable {
    let stack: InvoicesStack
    let renderer: PageRenderer
    let catalog: FormCatalog

    func addRoutes(to router: Router) {
        let pages = router.group(context: DashboardContext.self)
            .adding(SessionMiddleware(sessions: renderer.sessions, creating: false))
        add(Client.self, to: pages)
        add(Invoice.self, to: pages)
    }

    private func add<T: EditableEntity>(_ type: T.Type, to pages: RouteCollection<DashboardContext>) {
        pages.get("/\(T.formPath)/:pk/history") { request, context in
            guard let pk = request.primaryKey, let page = try historyPage(T.self, pk) else {
                return renderer.notFound(T.formNoun, session: context.session)
            }
            return renderer.page("history", title: page.title, section: T.formPath, session: context.session, page: page)
        }
        pages.get("/\(T.formPath)/:pk/history.json") { request, _ in
            guard let pk = request.primaryKey, let page = try historyPage(T.self, pk) else {
                return try .json(["error": "No \(T.formNoun) with this number has a history."], status: .notFound)
            }
            return try .json(page.entries, encoder: PageRenderer.jsonEncoder())
        }
    }

    private func historyPage<T: EditableEntity>(_ type: T.Type, _ pk: Int64) throws -> HistoryPage? {
        let entity = stack.coordinator.model.entity(for: T.self)?.name ?? String(describing: T.self)
        var labels = Self.extraLabels
        for field in catalog.table(forEntity: entity)?.fields ?? [] { labels[field.name] = field.label }
        guard let entries = try stack.history(of: T.self, primaryKey: pk, labels: labels) else { return nil }
        return HistoryPage(noun: T.formNoun, objectPath: "/\(T.formPath)/\(pk)", entries: entries)
    }

    /// Labels of properties no form shows.
    private static let extraLabels = ["paidAmount": "Paid", "createdAt": "Created"]
}

/// The page model of a history page.
struct HistoryPage: Sendable {
    let title: String
    let noun: String
    let objectPath: String
    let jsonPath: String
    let entries: [RecordHistoryEntry]
    let rows: [Row]
    let hasRows: Bool

    struct Row: Sendable {
        let kind: String
        let when: String
        let who: String
        let via: String
        let byAnotherProcess: Bool
        let fields: [Field]
        let hasFields: Bool
    }

    struct Field: Sendable {
        let label: String
        let old: String
        let new: String
    }

    init(noun: String, objectPath: String, entries: [RecordHistoryEntry]) {
        title = "History of \(noun) \(objectPath.split(separator: "/").last ?? "")"
        self.noun = noun
        self.objectPath = objectPath
        jsonPath = objectPath + "/history.json"
        self.entries = entries
        let format = Date.ISO8601FormatStyle(timeZone: .gmt).year().month().day().time(includingFractionalSeconds: false)
        rows = entries.map { entry in
            let fields = entry.fields.map { Field(label: $0.label, old: $0.old ?? "—", new: $0.new ?? "—") }
            return Row(kind: entry.kind, when: entry.date.formatted(format) + " UTC", who: entry.who, via: entry.via,
                       byAnotherProcess: entry.byAnotherProcess, fields: fields, hasFields: !fields.isEmpty)
        }
        hasRows = !rows.isEmpty
    }
}
