import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a test reads from a response.
struct TestResponse {
    let status: Int
    let headers: [String: String]
    let body: Data
    var text: String { String(decoding: body, as: UTF8.self) }
    func header(_ name: String) -> String? {
        headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
    }
}

/// One simulated visitor: an ephemeral URLSession, so its cookies are its own.
final class TestClient: NSObject, URLSessionTaskDelegate, @unchecked Sendable {
    // @unchecked Sendable: all properties are immutable after init; URLSession is thread-safe.
    let base: String
    let followRedirects: Bool
    private(set) var session: URLSession!

    init(base: String, followRedirects: Bool) {
        self.base = base
        self.followRedirects = followRedirects
        super.init()
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 20
        session = URLSession(configuration: configuration, delegate: self, delegateQueue: nil)
    }

    deinit { session.finishTasksAndInvalidate() }

    func get(_ path: String, headers: [String: String] = [:]) async throws -> TestResponse {
        try await send("GET", path, headers: headers)
    }

    func head(_ path: String) async throws -> TestResponse { try await send("HEAD", path) }

    func post(_ path: String, form: [(String, String)]) async throws -> TestResponse {
        let body = form.map { "\(encode($0.0))=\(encode($0.1))" }.joined(separator: "&")
        return try await send("POST", path, headers: ["Content-Type": "application/x-www-form-urlencoded"],
                              body: Data(body.utf8))
    }

    func send(_ method: String, _ path: String, headers: [String: String] = [:], body: Data? = nil) async throws -> TestResponse {
        var request = URLRequest(url: URL(string: base + path)!)
        request.httpMethod = method
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        request.httpBody = body
        let (data, response) = try await session.data(for: request)
        let http = response as! HTTPURLResponse
        var fields: [String: String] = [:]
        for (name, value) in http.allHeaderFields { fields["\(name)"] = "\(value)" }
        return TestResponse(status: http.statusCode, headers: fields, body: data)
    }

    private func encode(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? text
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void) {
        completionHandler(followRedirects ? request : nil)
    }
}
