import Foundation
import HTTPTypes
import WebServer

/// Who may open the inspector. It shows other visitors' unsaved values, so when the server
/// listens on anything but loopback it asks for the token given at start
/// (`invoices serve --inspector-token TOKEN`), and answers 403 without it; on loopback only
/// people on this machine can reach it, and no token is needed, unless the request came
/// through a trusted proxy from another machine (its forwarded client address says so).
///
/// The token may come as `?token=` (the page then sets a cookie, so its links and event
/// stream work without it), as an `X-Inspector-Token` header, as `Authorization: Bearer`, or
/// as the `inspector_token` cookie.
struct InspectorAccess: Sendable {
    /// The address the server listens on.
    let host: String
    /// The token, when one was given.
    let token: String?

    static let cookieName = "inspector_token"
    static let headerName = "X-Inspector-Token"

    /// What a request may do.
    enum Decision: Sendable, Equatable {
        /// Come in; `setCookie` when the token came in the query and should be remembered.
        case allowed(setCookie: Bool)
        /// 403, with the reason to show.
        case refused(String)
    }

    /// Whether the server listens on a loopback address only (127.0.0.0/8, ::1, localhost).
    var isLoopback: Bool { Self.isLoopback(host) }

    func decide(_ request: Request) -> Decision {
        let fromThisMachine = request.clientAddress.map(Self.isLoopback) ?? true
        if isLoopback && fromThisMachine { return .allowed(setCookie: false) }
        guard let token, !token.isEmpty else {
            if isLoopback {
                return .refused("The inspector shows unsaved values of every visitor. This request came through a "
                    + "proxy from \(request.clientAddress ?? "another machine"), so the inspector is closed: start "
                    + "the server with --inspector-token TOKEN to open it to people who know the token.")
            }
            return .refused("The inspector shows unsaved values of every visitor. This server listens on \(host), "
                + "beyond this machine, so the inspector is closed: start it with --inspector-token TOKEN to open it "
                + "to people who know the token, or listen on 127.0.0.1.")
        }
        let query = request.query.first { $0.name == "token" }?.value
        let bearer = request.headers[.authorization].flatMap { value in
            value.lowercased().hasPrefix("bearer ") ? String(value.dropFirst(7)) : nil
        }
        let header = request.headers[HTTPField.Name(Self.headerName)!]
        let cookie = request.cookies[Self.cookieName]
        for candidate in [query, header, bearer, cookie] {
            if let candidate, Tokens.constantTimeEqual(candidate, token) {
                return .allowed(setCookie: candidate == query && cookie != query)
            }
        }
        let given = query ?? header ?? bearer ?? cookie
        return .refused(given == nil
            ? "The inspector needs its token on this address: add ?token=… to the URL (or send the "
                + "\(Self.headerName) header)."
            : "The inspector's token is wrong.")
    }

    /// The cookie that remembers a token given in the query.
    /// Nil for a token a cookie cannot carry as it is (then the query or header must be used).
    func cookie(secure: Bool) -> Cookie? {
        guard let token, !token.isEmpty,
              token.unicodeScalars.allSatisfy({ $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "-._~".unicodeScalars.contains($0)) })
        else { return nil }
        return Cookie(name: Self.cookieName, value: token, path: "/", secure: secure, httpOnly: true, sameSite: .strict)
    }

    static func isLoopback(_ host: String) -> Bool { HostPolicy.isLoopback(host) }
}
