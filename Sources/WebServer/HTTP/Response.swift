import Foundation
import HTTPTypes

/// An HTTP response: a status, header fields and a body.
///
/// ```swift
/// router.get("/") { _ in .html("<h1>Hello</h1>") }
/// router.post("/clients") { request in
///     let form = try request.form()
///     return .redirect(to: "/clients/\(try save(form))")          // 303 See Other
/// }
/// ```
/// The server adds the default security headers (see `HTTPServer.Configuration.securityHeaders`)
/// for every name the response does not set itself, plus `X-Request-ID`.
public struct Response: Sendable {
    /// What the response sends after its headers.
    public enum Body: Sendable {
        case empty
        case text(String)
        case bytes([UInt8])
        /// A `text/event-stream` kept open until the stream or the server closes it.
        case eventStream(EventStream)
    }

    public var status: HTTPResponse.Status
    public var headers: HTTPFields
    public var body: Body

    public init(status: HTTPResponse.Status = .ok, headers: HTTPFields = [:], body: Body = .empty) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// An HTML page (`text/html; charset=utf-8`).
    public static func html(_ html: String, status: HTTPResponse.Status = .ok) -> Response {
        Response(status: status, headers: [.contentType: "text/html; charset=utf-8"], body: .text(html))
    }

    /// Plain text (`text/plain; charset=utf-8`).
    public static func text(_ text: String, status: HTTPResponse.Status = .ok) -> Response {
        Response(status: status, headers: [.contentType: "text/plain; charset=utf-8"], body: .text(text))
    }

    /// Bytes with the given content type.
    public static func bytes(_ bytes: [UInt8], contentType: String, status: HTTPResponse.Status = .ok) -> Response {
        Response(status: status, headers: [.contentType: contentType], body: .bytes(bytes))
    }

    /// `value` encoded as JSON (`application/json`).
    /// - Throws: the encoder's error (the server answers 500 for it).
    public static func json<T: Encodable>(_ value: T, status: HTTPResponse.Status = .ok,
                                          encoder: JSONEncoder = JSONEncoder()) throws -> Response {
        let data = try encoder.encode(value)
        return Response(status: status, headers: [.contentType: "application/json"], body: .bytes(Array(data)))
    }

    /// A redirect to `location`; the default 303 See Other is the answer to a successful POST
    /// (the browser follows it with a GET).
    public static func redirect(to location: String, status: HTTPResponse.Status = .seeOther) -> Response {
        Response(status: status, headers: [.location: location], body: .empty)
    }

    /// A server-sent event stream: the response stays open and sends what is pushed to `stream`.
    public static func eventStream(_ stream: EventStream) -> Response {
        Response(status: .ok,
                 headers: [.contentType: "text/event-stream", .cacheControl: "no-cache"],
                 body: .eventStream(stream))
    }

    /// Adds a `Set-Cookie` header for `cookie`.
    public mutating func setCookie(_ cookie: Cookie) {
        headers.append(HTTPField(name: .setCookie, value: cookie.headerValue))
    }

    /// The body's length in bytes (0 for an event stream, whose length is not known).
    public var bodyByteCount: Int {
        switch body {
        case .empty, .eventStream: 0
        case .text(let text): text.utf8.count
        case .bytes(let bytes): bytes.count
        }
    }

    /// The body as text, for tests and logs (nil for an event stream).
    public var bodyText: String? {
        switch body {
        case .empty: ""
        case .text(let text): text
        case .bytes(let bytes): String(decoding: bytes, as: UTF8.self)
        case .eventStream: nil
        }
    }
}
