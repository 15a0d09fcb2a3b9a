import Foundation
import HTTPTypes
import WebServer

/// The CSV upload: `GET /import` (the form), `POST /import` (multipart, CSRF) starts the
/// import in an import context beside the chain and redirects to `/imports/{id}`, which
/// shows its progress, then its report. Pages stay responsive: the import saves in batches
/// on its own queue and merges each into writer and main.
extension Dashboard {
    func addImportRoutes(to router: Router) {
        router.get("/import") { [self] request in
            let visit = visit(request, needsSession: true)
            return render("import/new", chrome: chrome("Import invoices", section: "invoices", session: visit.session),
                          page: ["columns": InvoiceCSVColumn.allCases.map(\.rawValue).joined(separator: ", ")], visit: visit)
        }
        router.post("/import") { [self] request in try await startImport(request) }
        router.get("/imports/:id") { [self] request in
            let visit = visit(request)
            guard let job = imports.job(request.parameters["id"] ?? "") else {
                return errorPage(.notFound, title: "Unknown import", message: "There is no import with this number.",
                                 link: "/import", linkText: "Import a file", visit: visit)
            }
            var response = render("import/show", chrome: chrome("Import of \(job.filename)", section: "invoices",
                                                                 session: visit.session),
                                  page: ImportPage(job), visit: visit)
            if !job.isFinished { response.headers[.init("Refresh")!] = "1" }
            return response
        }
    }

    private func startImport(_ request: Request) async throws -> Response {
        let submission: Submission
        switch try checkedPost(request, maximumSize: DashboardServer.maximumBodySize) {
        case .refused(let response): return response
        case .accepted(let accepted): submission = accepted
        }
        let visit: Visit = (submission.session, false)
        guard let file = try request.form().file(named: "file"), !file.bytes.isEmpty else {
            return errorPage(.unprocessableContent, title: "No file", message: "Choose a CSV file to import.",
                             link: "/import", linkText: "Back to the upload", visit: visit)
        }
        let id = imports.start(filename: file.filename.isEmpty ? "upload.csv" : file.filename)
        let data = Data(file.bytes), stack = self.stack, imports = self.imports
        Task.detached {
            do {
                let report = try await stack.importCSV(data) { progress in
                    imports.update(id) { $0.progress = progress }
                }
                imports.update(id) { $0.report = report }
            } catch {
                let reason = "\(error)"
                imports.update(id) { $0.failure = reason }
            }
        }
        return .redirect(to: "/imports/\(id)")
    }
}
