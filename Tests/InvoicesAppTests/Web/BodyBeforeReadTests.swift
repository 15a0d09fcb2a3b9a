import Foundation
import Testing
@testable import InvoicesApp

/// What the dashboard decides from a request's head alone: unknown routes, anonymous or forged
/// uploads and oversized forms are answered before a byte of their body is sent, and a
/// multipart upload's token is checked before the rest of it is parsed.
@Suite struct BodyBeforeReadTests {
    @Test func a30MBPostToAnUnknownRouteIsAnsweredBeforeItsBodyIsSent() async throws {
        try await withDashboard { app in
            let client = try RawHTTPClient(port: app.server.port, method: "POST", path: "/no/such/route",
                                           headers: ["Content-Type: application/octet-stream",
                                                     "Content-Length: 31457280"])
            let answer = await client.read(until: "\r\n\r\n", timeout: 10)
            #expect(answer.hasPrefix("HTTP/1.1 404"), "\(answer.prefix(80))")
            let wrongMethod = try RawHTTPClient(port: app.server.port, method: "PUT", path: "/clients",
                                                headers: ["Content-Length: 31457280"])
            let refused = await wrongMethod.read(until: "\r\n\r\n", timeout: 10)
            #expect(refused.hasPrefix("HTTP/1.1 405"), "\(refused.prefix(80))")
        }
    }

    @Test func theTokenIsCheckedBeforeTheRestOfAnUploadIsParsed() async throws {
        try await withDashboard { app in
            let visitor = app.visitor()
            let csrf = try #require(try await visitor.get("/import").csrf)
            // A token part, then 100,000 parts and no closing boundary: parsed in full, a 400.
            let boundary = "b0undary"
            func body(token: String) -> Data {
                var text = "--\(boundary)\r\nContent-Disposition: form-data; name=\"csrf\"\r\n\r\n\(token)\r\n"
                text += String(repeating: "--\(boundary)\r\nContent-Disposition: form-data; name=\"x\"\r\n\r\ny\r\n",
                               count: 100_000)
                return Data(text.utf8)
            }
            let type = ["Content-Type": "multipart/form-data; boundary=\(boundary)"]
            let forged = try await visitor.send("POST", "/import", headers: type, body: body(token: "forged"))
            #expect(forged.status == 403, "refused on its first part, before the broken rest is read")
            let genuine = try await visitor.send("POST", "/import", headers: type, body: body(token: csrf))
            #expect(genuine.status == 400)
            #expect(genuine.text.contains("closing boundary"))
        }
    }

    @Test func anAnonymous30MBUploadIsRefusedBeforeItsBodyIsSent() async throws {
        try await withDashboard { app in
            // The head announces 30 MB; not a byte of it follows, yet the answer comes.
            let client = try RawHTTPClient(port: app.server.port, method: "POST", path: "/import",
                                           headers: ["Content-Type: multipart/form-data; boundary=x",
                                                     "Content-Length: 31457280"])
            let answer = await client.read(until: "\r\n\r\n", timeout: 10)
            #expect(answer.hasPrefix("HTTP/1.1 403"), "\(answer.prefix(80))")
            // And with a live session but a wrong token in the header, the same.
            let visitor = app.visitor()
            _ = try await visitor.get("/import")
            let sid = try #require(visitor.cookie("sid"))
            let forged = try RawHTTPClient(port: app.server.port, method: "POST", path: "/import",
                                           headers: ["Cookie: sid=\(sid)", "X-CSRF-Token: forged",
                                                     "Content-Type: multipart/form-data; boundary=x",
                                                     "Content-Length: 31457280"])
            let refused = await forged.read(until: "\r\n\r\n", timeout: 10)
            #expect(refused.hasPrefix("HTTP/1.1 403"), "\(refused.prefix(80))")
        }
    }

    @Test func aFormBodyOver64KBIsRefusedBeforeItIsSent() async throws {
        try await withDashboard { app in
            let visitor = app.visitor()
            let (formPath, _) = try await visitor.openForm("/clients/new")
            let sid = try #require(visitor.cookie("sid"))
            let client = try RawHTTPClient(port: app.server.port, method: "POST", path: formPath,
                                           headers: ["Cookie: sid=\(sid)", "Content-Type: application/x-www-form-urlencoded",
                                                     "Content-Length: \(64 * 1024 + 1)"])
            let answer = await client.read(until: "\r\n\r\n", timeout: 10)
            #expect(answer.hasPrefix("HTTP/1.1 413"), "\(answer.prefix(80))")
        }
    }
}
