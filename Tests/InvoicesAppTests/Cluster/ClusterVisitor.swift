import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One browser in front of a cluster: one cookie jar for every port (cookies do not care for
/// ports), so the same visitor can go through nginx or straight to one server. Does not
/// follow redirects, so tests see each 303 and its `Location`.
final class ClusterVisitor: NSObject, URLSessionTaskDelegate, @unchecked Sendable {
    // @unchecked Sendable: `session` and `port` are set in init and never changed; URLSession is thread-safe.
    private var session: URLSession?
    /// Where requests go unless told otherwise (nginx's port).
    let port: Int

    init(port: Int) {
        self.port = port
        super.init()
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 30
        session = URLSession(configuration: configuration, delegate: self, delegateQueue: nil)
    }

    deinit { session?.finishTasksAndInvalidate() }

    func get(_ path: String, port: Int? = nil) async throws -> WebResponse {
        try await send("GET", path, port: port)
    }

    func post(_ path: String, _ form: [(String, String)], port: Int? = nil) async throws -> WebResponse {
        let body = form.map { "\(Visitor.encode($0.0))=\(Visitor.encode($0.1))" }.joined(separator: "&")
        return try await send("POST", path, port: port, body: Data(body.utf8))
    }

    private func send(_ method: String, _ path: String, port: Int?, body: Data? = nil) async throws -> WebResponse {
        guard let url = URL(string: "http://127.0.0.1:\(port ?? self.port)\(path)"), let session else {
            throw URLError(.badURL)
        }
        var request = URLRequest(url: url)
        request.httpMethod = method
        if body != nil { request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type") }
        request.httpBody = body
        let (data, response) = try await session.data(for: request)
        guard let http = response as? HTTPURLResponse else { throw URLError(.badServerResponse) }
        var fields: [String: String] = [:]
        for (name, value) in http.allHeaderFields { fields["\(name)"] = "\(value)" }
        return WebResponse(status: http.statusCode, headers: fields, body: data)
    }

    /// Opens a form (`/clients/new`, `/clients/7/edit`) and reads it, each request on the port
    /// given (nil: nginx): returns the form's path and its CSRF token.
    func openForm(_ path: String, on opener: Int? = nil, readOn reader: Int? = nil) async throws -> (path: String, csrf: String) {
        let opened = try await get(path, port: opener)
        guard opened.status == 303, let location = opened.header("Location") else {
            throw URLError(.badServerResponse, userInfo: [NSLocalizedDescriptionKey: "\(path) answered \(opened.status): \(opened.text.prefix(300))"])
        }
        let page = try await get(location, port: reader)
        guard page.status == 200, let csrf = page.csrf else {
            throw URLError(.badServerResponse, userInfo: [NSLocalizedDescriptionKey: "\(location) answered \(page.status): \(page.text.prefix(300))"])
        }
        return (location, csrf)
    }

    /// Creates a client through a form (on `port`, nil: nginx); returns the save's answer.
    func createClient(_ name: String, port: Int? = nil) async throws -> WebResponse {
        let (path, csrf) = try await openForm("/clients/new", on: port, readOn: port)
        return try await post(path, [("csrf", csrf), ("name", name), ("action", "save")], port: port)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void) {
        completionHandler(nil)
    }
}
