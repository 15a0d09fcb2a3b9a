import Foundation
import HTTPTypes

/// An HTTP request as a handler sees it: decoded, validated, with its whole body.
///
/// The path and query are percent-decoded and valid UTF-8 by the time a handler runs (a request
/// that is not gets a 400 naming the problem). The body is complete and within the configured limit.
public struct Request: Sendable {
    /// The method; a HEAD request answered by a GET route still reports `.head`.
    public let method: HTTPRequest.Method
    /// The decoded path, for example `/clients/42`.
    public let path: String
    /// The query parameters, decoded, repeated names kept.
    public let query: QueryParameters
    /// The request's header fields.
    public let headers: HTTPFields
    /// The body bytes (empty when there is none).
    public let body: [UInt8]
    /// The values the route pattern captured (`:pk`, `**`).
    public internal(set) var parameters: RouteParameters
    /// A short identifier, also sent back as `X-Request-ID` and written in the log lines.
    public let id: String
    /// The client's address: the peer's, or behind a trusted proxy the one it forwarded
    /// (see ``HostPolicy``). Nil for a request made in a test without a server.
    public internal(set) var clientAddress: String?
    /// Whether the client reached the server over HTTPS (a trusted proxy said so in
    /// `X-Forwarded-Proto`): cookies set in the answer should then be `Secure`.
    public internal(set) var isSecure = false

    /// Creates a request, for tests of handlers that do not go through a server.
    public init(method: HTTPRequest.Method, path: String, query: QueryParameters = QueryParameters(),
                headers: HTTPFields = [:], body: [UInt8] = [], parameters: RouteParameters = RouteParameters(),
                id: String = "test") {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
        self.parameters = parameters
        self.id = id
    }

    /// The cookies the client sent, by name.
    public var cookies: [String: String] {
        var cookies: [String: String] = [:]
        for header in headers[values: .cookie] {
            Cookie.parse(header: header, into: &cookies)
        }
        return cookies
    }

    /// The media type of the body without its parameters, lowercased (`multipart/form-data`).
    public var contentType: String? {
        guard let value = headers[.contentType] else { return nil }
        // Up to the ASCII `;` only: as a String, U+037E (canonically `;`) would end it too.
        let type = value.utf8.prefix { $0 != UInt8(ascii: ";") }
        return Substring(type).trimmingSpaces().lowercased()
    }

    /// The body as UTF-8 text.
    /// - Throws: `HTTPError` 400 when the body is not valid UTF-8.
    public func bodyText() throws(HTTPError) -> String {
        guard let text = String(validating: body, as: UTF8.self) else {
            throw HTTPError(.badRequest, "Bad request: the body is not valid UTF-8.")
        }
        return text
    }

    /// The submitted form, from an `application/x-www-form-urlencoded` or `multipart/form-data` body.
    ///
    /// Field values are the text as sent, in either encoding: valid UTF-8, but any character,
    /// NUL and other control characters included. Check them before storing them.
    /// - Throws: `HTTPError` 415 for another content type, 400 for a malformed body (with the reason).
    public func form() throws(HTTPError) -> FormData {
        switch contentType {
        case "application/x-www-form-urlencoded":
            return FormData(fields: try QueryParameters.parse(body, part: "form body", allowsNUL: true))
        case "multipart/form-data":
            guard let header = headers[.contentType] else { throw HTTPError(.badRequest) }
            return try MultipartParser.parse(body: body, contentType: header)
        case nil where body.isEmpty:
            return FormData()
        default:
            throw HTTPError(.unsupportedMediaType,
                            "Unsupported media type: expected a form (application/x-www-form-urlencoded or multipart/form-data).")
        }
    }

    /// The fields of a form body up to its `count`th part when it is `multipart/form-data`
    /// (the rest is not parsed), the whole form otherwise: a token sent as the first part can be
    /// checked before a large upload is parsed.
    public func leadingFormFields(_ count: Int) throws(HTTPError) -> FormData {
        guard contentType == "multipart/form-data" else { return try form() }
        guard let header = headers[.contentType] else { throw HTTPError(.badRequest) }
        return try MultipartParser.parse(body: body, contentType: header, maximumParts: count)
    }

    /// Decodes a JSON body.
    /// - Throws: `HTTPError` 400 with the decoder's explanation when the body does not match `type`.
    public func decode<T: Decodable>(json type: T.Type, decoder: JSONDecoder = JSONDecoder()) throws(HTTPError) -> T {
        do {
            return try decoder.decode(type, from: Data(body))
        } catch {
            throw HTTPError(.badRequest, "Bad request: the JSON body does not match (\(Self.summary(of: error))).")
        }
    }

    private static func summary(of error: any Error) -> String {
        switch error {
        case DecodingError.keyNotFound(let key, _): "missing key \"\(key.stringValue)\""
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            "wrong type at \"\(context.codingPath.map(\.stringValue).joined(separator: "."))\""
        case DecodingError.dataCorrupted: "not valid JSON"
        default: "unreadable"
        }
    }
}
