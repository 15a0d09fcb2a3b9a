import Foundation
import HTTPTypes
import WebServer

/// The CSV upload: `GET /import` (the form), `POST /import` (multipart, behind ``CSRFCheck``,
/// up to 32 MB) starts the import in an import context beside the chain and redirects to
/// `/imports/{id}`, which shows its progress, then its report. Pages stay responsive: the
/// import saves in batches on its own queue and merges each into writer and main.
struct ImportRoutes: Sendable {
    let stack: InvoicesStack
    let renderer: PageRenderer
    let jobs: ImportJobs

    /// The largest upload accepted (413 above it, before its body is read).
    static let maximumUploadSize = 32 << 20

    func addRoutes(to router: Router) {
        router.group(context: DashboardContext.self).adding(SessionMiddleware(sessions: renderer.sessions, creating: true))
            .get("/import") { _, context in
                renderer.page("import/new", title: "Import invoices", section: "invoices", session: context.session,
                              page: ["columns": InvoiceCSVColumn.allCases.map(\.rawValue).joined(separator: ", ")])
            }
        router.group(context: DashboardContext.self).limitingBodies(to: Self.maximumUploadSize)
            .adding(SessionMiddleware(sessions: renderer.sessions, creating: false)).adding(CSRFCheck(renderer: renderer))
            .post("/import") { _, context in try await start(context) }
        router.group(context: DashboardContext.self).adding(SessionMiddleware(sessions: renderer.sessions, creating: false))
            .get("/imports/:id") { request, context in show(request, context) }
    }

    private func show(_ request: Request, _ context: DashboardContext) -> Response {
        guard let job = jobs.job(request.parameters["id"] ?? "") else {
            return renderer.errorPage(.notFound, title: "Unknown import", message: "There is no import with this number.",
                                      link: "/import", linkText: "Import a file", session: context.session)
        }
        var response = renderer.page("import/show", title: "Import of \(job.filename)", section: "invoices",
                                     session: context.session, page: ImportPage(job))
        if !job.isFinished { response.headers[.init("Refresh")!] = "1" }
        return response
    }

    private func start(_ context: DashboardContext) async throws -> Response {
        guard let file = context.form?.file(named: "file"), !file.bytes.isEmpty else {
            return renderer.errorPage(.unprocessableContent, title: "No file", message: "Choose a CSV file to import.",
                                      link: "/import", linkText: "Back to the upload", session: context.session)
        }
        guard let id = jobs.start(filename: file.filename.isEmpty ? "upload.csv" : file.filename) else {
            var page = renderer.errorPage(.serviceUnavailable, title: "Imports busy",
                                          message: "\(ImportJobs.maximumRunning) imports are running. Upload the file again when one has finished.",
                                          link: "/import", linkText: "Back to the upload", session: context.session)
            page.headers[.retryAfter] = "10"
            return page
        }
        let data = Data(file.bytes), stack = self.stack, jobs = self.jobs
        let author = context.session?.label ?? "a visitor", name = "upload: \(file.filename.isEmpty ? "upload.csv" : file.filename)"
        Task.detached {
            do {
                let report = try await stack.importCSV(data, author: author, name: name) { progress in
                    jobs.update(id) { $0.progress = progress }
                }
                jobs.update(id) { $0.report = report }
            } catch {
                let reason = "\(error)"
                jobs.update(id) { $0.failure = reason }
            }
        }
        return .redirect(to: "/imports/\(id)")
    }
}
