import HTTPTypes

/// An error a handler throws to answer with a given status and a message safe to show the client.
///
/// The server turns it into a plain response with that status; any other error becomes a 500 page
/// that shows no internals.
///
/// ```swift
/// guard let client = clients[pk] else { throw HTTPError(.notFound, "No client \(pk).") }
/// ```
public struct HTTPError: Error, Sendable, CustomStringConvertible {
    /// The status of the response.
    public var status: HTTPResponse.Status
    /// A short explanation for the client. It is sent as is, so it must not contain internals.
    public var message: String
    /// Extra header fields for the response (for example `Allow` with a 405).
    public var headers: HTTPFields

    /// Creates an error answered with `status` and `message` (by default, the status's reason phrase).
    public init(_ status: HTTPResponse.Status, _ message: String? = nil, headers: HTTPFields = [:]) {
        self.status = status
        self.message = message ?? "\(status.code) \(status.reasonPhrase)"
        self.headers = headers
    }

    public var description: String { "\(status.code): \(message)" }

    /// The response a client sees for this error.
    var response: Response {
        var response = Response.text(message + "\n", status: status)
        for field in headers { response.headers.append(field) }
        return response
    }
}
