import Foundation
import Testing
import WebServer

@Suite struct StaticFilesTests {
    @Test func fileIsServedWithItsContentTypeAndCacheHeaders() async throws {
        let files = try StaticFiles(directory: publicDirectory)
        try await withServer({ router in router.serveFiles(at: "/static", from: files) }) { server in
            let response = try await server.client().get("/static/style.css")
            #expect(response.status == 200)
            #expect(response.header("Content-Type") == "text/css; charset=utf-8")
            #expect(response.header("Cache-Control") == "public, max-age=300")
            #expect(response.header("ETag")?.hasPrefix("\"") == true)
            #expect(response.header("Last-Modified")?.hasSuffix(" GMT") == true)
            #expect(response.text.contains("font-family"))
        }
    }

    @Test func matchingETagIsAnswered304WithoutBody() async throws {
        let files = try StaticFiles(directory: publicDirectory)
        try await withServer({ router in router.serveFiles(at: "/static", from: files) }) { server in
            let client = server.client()
            let first = try await client.get("/static/style.css")
            let etag = try #require(first.header("ETag"))
            let second = try await client.get("/static/style.css", headers: ["If-None-Match": etag])
            #expect(second.status == 304)
            #expect(second.body.isEmpty)
            #expect(second.header("ETag") == etag)
        }
    }

    @Test func unchangedSinceLastModifiedIsAnswered304() async throws {
        let files = try StaticFiles(directory: publicDirectory)
        try await withServer({ router in router.serveFiles(at: "/static", from: files) }) { server in
            let client = server.client()
            let first = try await client.get("/static/style.css")
            let modified = try #require(first.header("Last-Modified"))
            let second = try await client.get("/static/style.css", headers: ["If-Modified-Since": modified])
            #expect(second.status == 304)
            let old = try await client.get("/static/style.css", headers: ["If-Modified-Since": "Sun, 06 Nov 1994 08:49:37 GMT"])
            #expect(old.status == 200)
            let absurd = try await client.get("/static/style.css", headers: ["If-Modified-Since": "Sun, 06 Nov -2147483648 99:99:99 GMT"])
            #expect(absurd.status == 200)
        }
    }

    @Test func everyPathEscapeAttemptIsAnswered404() async throws {
        // given a served folder, a secret beside it, and a link inside pointing at the secret
        let root = try makeDirectory(["public/app.js": "console.log(1)", "public/sub/ok.txt": "fine",
                                      "public/.env": "HIDDEN", "secret.txt": "SECRET"])
        defer { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.createSymbolicLink(atPath: root.path + "/public/escape.txt",
                                                   withDestinationPath: root.path + "/secret.txt")
        try FileManager.default.createSymbolicLink(atPath: root.path + "/public/up",
                                                   withDestinationPath: root.path)
        let files = try StaticFiles(directory: root.path + "/public")
        try await withServer({ router in router.serveFiles(at: "/static", from: files) }) { server in
            let attempts = [
                "/static/../secret.txt", "/static/sub/../../secret.txt", "/static/%2e%2e/secret.txt",
                "/static/%2E%2E/secret.txt", "/static/..%2fsecret.txt", "/static/%2e%2e%2fsecret.txt",
                "/static/sub%2f..%2f..%2fsecret.txt", "/static/..%5csecret.txt", "/static/escape.txt",
                "/static/up/secret.txt", "/static//etc/passwd", "/static/%2fetc%2fpasswd", "/static/.env",
                "/static/%2eenv", "/static/", "/static/sub",
                "/static/sub/ok.txt/..", "/static/%5c..%5csecret.txt",
            ]
            for path in attempts {
                // raw requests, since HTTP clients normalize dot segments away
                let raw = try server.rawConnection()
                raw.send("GET \(path) HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
                let reply = await raw.receive()
                #expect(reply.hasPrefix("HTTP/1.1 404"), "\(path): \(reply.prefix(20))")
                #expect(!reply.contains("SECRET") && !reply.contains("HIDDEN") && !reply.contains("root:"), "\(path)")
            }
            // a NUL byte is refused before any file lookup
            let raw = try server.rawConnection()
            raw.send("GET /static/sub/%00ok.txt HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
            #expect(await raw.receive().hasPrefix("HTTP/1.1 400"))
            // while a file inside is served
            let inside = try await server.client().get("/static/sub/ok.txt")
            #expect(inside.text == "fine")
        }
    }

    @Test func missingDirectoryIsReportedWhenCreated() {
        #expect(throws: StaticFiles.Error.self) { try StaticFiles(directory: "/no/such/folder") }
    }
}
