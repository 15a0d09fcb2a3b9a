import Foundation
import Testing
@testable import WebServer

/// The `Host` check against DNS rebinding, and what a trusted proxy may say about a request.
@Suite struct HostPolicyTests {
    /// Sends one GET by hand, so the `Host` and `X-Forwarded-*` headers are exactly ours.
    private func get(_ path: String, host: String?, extra: [String] = [], on server: TestServer) async throws -> String {
        let raw = try server.rawConnection()
        var lines = ["GET \(path) HTTP/1.1"]
        if let host { lines.append("Host: \(host)") }
        lines += extra + ["Connection: close", "", ""]
        raw.send(lines.joined(separator: "\r\n"))
        return await raw.receive(timeout: 5)
    }

    private func echoRouter(_ router: Router) {
        router.get("/who") { request in
            .text("client=\(request.clientAddress ?? "none") secure=\(request.isSecure)")
        }
    }

    @Test func aNameThatIsNotConfiguredGets421WithTheReason() async throws {
        var configuration = HTTPServer.Configuration()
        configuration.hostPolicy = HostPolicy(refusalHint: "Start the server with --allowed-host NAME.")
        try await withServer(configuration: configuration, echoRouter) { server in
            let reply = try await get("/who", host: "evil.example:\(server.port)", on: server)
            #expect(reply.hasPrefix("HTTP/1.1 421"), "\(reply.prefix(60))")
            #expect(reply.contains("evil.example"))
            #expect(reply.contains("--allowed-host NAME"))
            #expect(!reply.contains("client="))
        }
    }

    @Test func loopbackNamesAndAddressesAreAnsweredByDefault() async throws {
        try await withServer(echoRouter) { server in
            for host in ["127.0.0.1:\(server.port)", "localhost:\(server.port)", "LOCALHOST.", "[::1]:\(server.port)",
                         "app.localhost", "192.168.1.20"] {
                let reply = try await get("/who", host: host, on: server)
                #expect(reply.hasPrefix("HTTP/1.1 200"), "\(host): \(reply.prefix(60))")
                #expect(reply.contains("client=127.0.0.1 secure=false"), "\(host)")
            }
        }
    }

    @Test func configuredNamesAndDomainsAreAnsweredAndLookalikesAreNot() async throws {
        var configuration = HTTPServer.Configuration()
        configuration.hostPolicy = HostPolicy(allowedNames: ["Invoices.Example.com", ".corp.test"])
        try await withServer(configuration: configuration, echoRouter) { server in
            for host in ["invoices.example.com", "invoices.example.com:8080", "corp.test", "a.b.corp.test"] {
                let reply = try await get("/who", host: host, on: server)
                #expect(reply.hasPrefix("HTTP/1.1 200"), "\(host): \(reply.prefix(60))")
            }
            for host in ["example.com", "invoices.example.com.evil.example", "evilcorp.test", "x.invoices.example.com"] {
                let reply = try await get("/who", host: host, on: server)
                #expect(reply.hasPrefix("HTTP/1.1 421"), "\(host): \(reply.prefix(60))")
            }
        }
    }

    @Test func aTrustedProxySaysWhoTheClientIsAndWhetherItCameOverHTTPS() async throws {
        var configuration = HTTPServer.Configuration()
        configuration.hostPolicy = HostPolicy(allowedNames: ["invoices.example.com"], trustedProxies: ["127.0.0.1"])
        try await withServer(configuration: configuration, echoRouter) { server in
            let forwarded = ["X-Forwarded-For: 6.6.6.6, 203.0.113.9", "X-Forwarded-Proto: https",
                             "X-Forwarded-Host: invoices.example.com"]
            let reply = try await get("/who", host: "127.0.0.1", extra: forwarded, on: server)
            #expect(reply.contains("client=203.0.113.9 secure=true"), "\(reply.suffix(60))")
            // The proxy passes the name the browser asked for: that is the one checked.
            let rebound = try await get("/who", host: "127.0.0.1",
                                        extra: ["X-Forwarded-For: 203.0.113.9", "X-Forwarded-Host: evil.example"],
                                        on: server)
            #expect(rebound.hasPrefix("HTTP/1.1 421"), "\(rebound.prefix(60))")
        }
    }

    @Test func forwardedHeadersFromAnyoneElseAreIgnored() async throws {
        var configuration = HTTPServer.Configuration()
        configuration.hostPolicy = HostPolicy(trustedProxies: ["10.0.0.1"])
        try await withServer(configuration: configuration, echoRouter) { server in
            let reply = try await get("/who", host: "127.0.0.1",
                                      extra: ["X-Forwarded-For: 203.0.113.9", "X-Forwarded-Proto: https",
                                              "X-Forwarded-Host: invoices.example.com"], on: server)
            #expect(reply.contains("client=127.0.0.1 secure=false"), "\(reply.suffix(60))")
        }
    }

    @Test func addressesAreComparedInOneSpelling() {
        #expect(HostPolicy.canonicalAddress("0:0:0:0:0:0:0:1") == "::1")
        #expect(HostPolicy.canonicalAddress("[::1]") == "::1")
        #expect(HostPolicy.canonicalAddress("127.0.0.1") == "127.0.0.1")
        #expect(HostPolicy.canonicalAddress("localhost") == nil)
        #expect(HostPolicy.canonicalAddress("127.1") == nil)
        let policy = HostPolicy()
        #expect(policy.allows(host: "") == false)
        #expect(policy.allows(host: "[::1]:8080"))
        #expect(policy.allows(host: "evil.example") == false)
    }
}
