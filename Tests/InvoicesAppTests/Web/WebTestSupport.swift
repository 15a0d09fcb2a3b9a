import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import ObjectGraph
@testable import InvoicesApp

/// What a test reads from a response: status, header fields, body.
struct WebResponse {
    let status: Int
    let headers: [String: String]
    let body: Data
    var text: String { String(decoding: body, as: UTF8.self) }
    func header(_ name: String) -> String? {
        headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
    }
    /// The value of the page's first hidden `csrf` input.
    var csrf: String? { text.firstMatch(of: /name="csrf" value="([0-9a-f]+)"/).map { String($0.1) } }
}

/// One simulated browser: an ephemeral URLSession (its own cookie jar) that does not follow
/// redirects, so tests see each 303 and its `Location`.
final class Visitor: NSObject, URLSessionTaskDelegate, @unchecked Sendable {
    // @unchecked Sendable: `base` and `session` are set in init and never changed; URLSession is thread-safe.
    let base: String
    private var session: URLSession?
    /// The visitor that made the session (and its cookie jar) and invalidates it.
    private let owner: Visitor?

    init(port: Int) {
        base = "http://127.0.0.1:\(port)"
        owner = nil
        super.init()
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 30
        session = URLSession(configuration: configuration, delegate: self, delegateQueue: nil)
    }

    private init(base: String, sharing owner: Visitor) {
        self.base = base
        self.owner = owner
        session = owner.session
    }

    /// The same browser, cookies and all, talking to the server on `port` of this host (as a
    /// balancer without stickiness would send it).
    func at(port: Int) -> Visitor {
        Visitor(base: "http://127.0.0.1:\(port)", sharing: owner ?? self)
    }

    deinit { if owner == nil { session?.finishTasksAndInvalidate() } }

    func get(_ path: String) async throws -> WebResponse { try await send("GET", path) }

    /// The value of a cookie the server set for this visitor.
    func cookie(_ name: String) -> String? {
        guard let url = URL(string: base) else { return nil }
        return session?.configuration.httpCookieStorage?.cookies(for: url)?.first { $0.name == name }?.value
    }

    func post(_ path: String, _ form: [(String, String)]) async throws -> WebResponse {
        let body = form.map { "\(Self.encode($0.0))=\(Self.encode($0.1))" }.joined(separator: "&")
        return try await send("POST", path, headers: ["Content-Type": "application/x-www-form-urlencoded"],
                              body: Data(body.utf8))
    }

    func send(_ method: String, _ path: String, headers: [String: String] = [:], body: Data? = nil) async throws -> WebResponse {
        guard let url = URL(string: base + path), let session else { throw URLError(.badURL) }
        var request = URLRequest(url: url)
        request.httpMethod = method
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        request.httpBody = body
        let (data, response) = try await session.data(for: request)
        guard let http = response as? HTTPURLResponse else { throw URLError(.badServerResponse) }
        var fields: [String: String] = [:]
        for (name, value) in http.allHeaderFields { fields["\(name)"] = "\(value)" }
        return WebResponse(status: http.statusCode, headers: fields, body: data)
    }

    /// Opens a form (`/clients/new`, `/invoices/7/edit`): follows the 303 and returns the
    /// form's path and the page.
    func openForm(_ path: String) async throws -> (path: String, page: WebResponse) {
        let opened = try await get(path)
        guard opened.status == 303, let location = opened.header("Location") else {
            throw URLError(.badServerResponse, userInfo: [NSLocalizedDescriptionKey: "\(path) answered \(opened.status)"])
        }
        return (location, try await get(location))
    }

    static func encode(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? text
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void) {
        completionHandler(nil)
    }
}

/// The repository's Templates/ and Public/ folders.
let repositoryResources: DashboardResources = {
    let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    return DashboardResources(templates: root.appendingPathComponent("Templates").path,
                              public: root.appendingPathComponent("Public").path)
}()

/// A running dashboard over a new database, for one test.
struct TestDashboard {
    let server: DashboardServer
    let location: StoreLocation
    /// The SQLite file (tests that read it directly run on SQLite only).
    var databaseURL: URL {
        guard let url = location.fileURL else { preconditionFailure("this test reads an SQLite file: run it on StackStore.sqlite") }
        return url
    }
    var stack: InvoicesStack { server.stack }
    func visitor() -> Visitor { Visitor(port: server.port) }
}

/// Starts the dashboard on 127.0.0.1 and an ephemeral port over a new database (an SQLite file
/// unless `store` says otherwise) holding two clients (Acme with three invoices in EUR and USD,
/// Beta with none), runs `body`, stops.
func withDashboard(on store: StackStore = .sqlite, persist: PersistMode = .immediate,
                   _ body: (TestDashboard) async throws -> Void) async throws {
    let location = try await store.makeLocation()
    let stack = try await openStack(location, persist: persist)
    try await insertTwoClients(into: stack)
    let server = try DashboardServer(stack: stack, host: "127.0.0.1", port: 0, resources: repositoryResources)
    do {
        try await body(TestDashboard(server: server, location: location))
    } catch {
        await server.stop()
        throw error
    }
    await server.stop()
}

/// A new database file holding what ``withDashboard(persist:_:)`` serves, for tests that
/// start `invoices serve` processes on it (``ServeProcess``).
func seededDatabase() async throws -> URL {
    let url = TestFiles.database()
    try await insertTwoClients(into: try InvoicesStack(storeURL: url))
    return url
}

/// Acme Corp with three invoices (INV-1 to INV-3, in EUR and USD) and Beta Ltd with none.
func insertTwoClients(into stack: InvoicesStack) async throws {
    try await insert(into: stack) { context in
        let acme = Client(context: context)
        acme.name = "Acme Corp"
        acme.email = "billing@acme.test"
        acme.number = "C-1"
        acme.city = "Zürich"
        let beta = Client(context: context)
        beta.name = "Beta Ltd"
        for (identifier, amount, currency, status) in [("INV-1", "100.00", "EUR", InvoiceStatus.sent),
                                                       ("INV-2", "50.50", "EUR", .paid),
                                                       ("INV-3", "20.00", "USD", .sent)] {
            let invoice = Invoice(context: context)
            invoice.identifier = identifier
            invoice.currency = currency
            invoice.status = status
            invoice.setSingleLine(amount: decimal(amount))
            invoice.issueDay = day("2025-06-01")
            invoice.dueDay = day("2099-07-01")
            invoice.client = acme
        }
    }
}

/// Primary keys by client name, read through a separate coordinator on the same file: what
/// is on disk.
func clientsOnDisk(_ url: URL) async throws -> [String: String?] {
    let stack = try InvoicesStack(storeURL: url)
    let context = stack.newImportContext(name: "disk check")
    return try await context.perform { () throws -> [String: String?] in
        var result: [String: String?] = [:]
        for client in try context.fetch(FetchRequest<Client>()) { result[client.name] = client.city }
        return result
    }
}

/// Invoice identifiers on disk, through a separate coordinator.
func invoiceIdentifiersOnDisk(_ url: URL) async throws -> Set<String> {
    let stack = try InvoicesStack(storeURL: url)
    let context = stack.newImportContext(name: "disk check")
    return try await context.perform { () throws -> Set<String> in
        Set(try context.fetch(FetchRequest<Invoice>()).map(\.displayNumber))
    }
}

/// The primary key of the client named `name`, from `/clients.json`.
func clientID(_ name: String, visitor: Visitor) async throws -> Int64 {
    let response = try await visitor.get("/clients.json?q=" + Visitor.encode(name))
    let page = try jsonDecoder().decode(Page<ClientSummary>.self, from: response.body)
    guard let id = page.items.first(where: { $0.name == name })?.id else { throw URLError(.fileDoesNotExist) }
    return id
}

/// Reads the `.json` twins (dates in ISO 8601).
func jsonDecoder() -> JSONDecoder {
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .iso8601
    return decoder
}
