import Foundation
import HTTPTypes
import WebServer

/// How the dashboard answers an error the server or a handler raises (an unknown address, a
/// wrong method, a body too large, a refused `Host`, a failed handler): an HTML page in the
/// site's chrome, `{"error": …}` for a `.json` twin, plain text for the `.csv`, `.md` and
/// `.pdf` downloads. Installed as the server's `errorPages`.
struct ErrorPages: Sendable {
    let renderer: PageRenderer

    func response(for error: HTTPError, path: String) -> Response {
        if path.hasSuffix(".json") {
            return (try? Response.json(["error": error.message], status: error.status))
                ?? .text(error.message + "\n", status: error.status)
        }
        if [".csv", ".md", ".pdf"].contains(where: path.hasSuffix) {
            return .text(error.message + "\n", status: error.status)
        }
        return renderer.errorPage(error.status, title: error.status.reasonPhrase, message: error.message,
                                  link: "/clients", linkText: "Back to the clients", session: nil)
    }
}
