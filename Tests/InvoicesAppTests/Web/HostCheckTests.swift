import Foundation
import Testing
@testable import InvoicesApp

/// DNS rebinding and reverse proxies: the dashboard answers only the names it was told about,
/// and believes forwarded headers only from the proxies it was told about.
@Suite struct HostCheckTests {
    /// The head of the answer to `GET path` sent with `host` and `headers`.
    private func head(port: Int, _ path: String, host: String, headers: [String] = []) async throws -> String {
        let client = try RawHTTPClient(port: port, path: path, host: host, headers: headers + ["Connection: close"])
        // Generous: it bounds only a failing run, and a loaded machine answers in seconds.
        return await client.read(until: "\r\n\r\n", timeout: 30)
    }

    @Test func aRebindingPageCannotReadTheInspectorButLoopbackCan() async throws {
        try await withDashboard { dashboard in
            let port = dashboard.server.port
            let rebound = try await head(port: port, "/contexts.json", host: "evil.example:\(port)")
            #expect(rebound.hasPrefix("HTTP/1.1 421"), "\(rebound.prefix(80))")
            let body = try await RawHTTPClient(port: port, path: "/clients/new", host: "evil.example")
                .read(until: "allowed-host", timeout: 10)
            #expect(body.contains("invoices serve --allowed-host NAME"), "\(body.suffix(200))")
            #expect(!body.contains("csrf"))
            for host in ["localhost:\(port)", "127.0.0.1:\(port)"] {
                let local = try await head(port: port, "/contexts.json", host: host)
                #expect(local.hasPrefix("HTTP/1.1 200"), "\(host): \(local.prefix(80))")
            }
        }
    }

    @Test func behindATrustedProxyTheServerAnswersItsNameAndKeepsTheInspectorFromOtherMachines() async throws {
        let url = try await seededDatabase()
        let server = try await ServeProcess(database: url, options: ["--allowed-host", "invoices.example.com",
                                                                     "--trusted-proxy", "127.0.0.1"])
        let port = server.port
        let proxied = ["X-Forwarded-Host: invoices.example.com", "X-Forwarded-Proto: https"]
        // A visitor on another machine, through the proxy: pages yes, the inspector no.
        let remote = ["X-Forwarded-For: 203.0.113.9"] + proxied
        let page = try await head(port: port, "/clients/new", host: "127.0.0.1", headers: remote)
        #expect(page.hasPrefix("HTTP/1.1 303"), "\(page.prefix(80))")   // to the new form
        #expect(page.contains("Set-Cookie: sid="))
        #expect(page.range(of: #"Set-Cookie: sid=[^\r]*; Secure"#, options: .regularExpression) != nil, "\(page)")
        let inspector = try await head(port: port, "/contexts.json", host: "127.0.0.1", headers: remote)
        #expect(inspector.hasPrefix("HTTP/1.1 403"), "\(inspector.prefix(80))")
        // Someone on the proxy's own machine may look; a name the proxy did not vouch for may not.
        let local = try await head(port: port, "/contexts.json", host: "127.0.0.1",
                                   headers: ["X-Forwarded-For: 127.0.0.1"] + proxied)
        #expect(local.hasPrefix("HTTP/1.1 200"), "\(local.prefix(80))")
        let rebound = try await head(port: port, "/clients", host: "127.0.0.1",
                                     headers: ["X-Forwarded-For: 203.0.113.9", "X-Forwarded-Host: evil.example"])
        #expect(rebound.hasPrefix("HTTP/1.1 421"), "\(rebound.prefix(80))")
        // Over plain HTTP, the cookie is not Secure (the browser would drop it).
        let plain = try await head(port: port, "/clients/new", host: "invoices.example.com")
        #expect(plain.contains("Set-Cookie: sid=") && !plain.contains("Secure"), "\(plain)")
        let stopped = await server.stop()
        #expect(stopped.status == 0, "\(stopped.printed)")
    }

    @Test func serveRefusesAnAllowedHostWithASchemeAndAProxyThatIsNoAddress() async throws {
        guard let invoices = ChildProcess.executable("invoices") else {
            Issue.record("the invoices executable was not built beside the tests")
            return
        }
        let badHost = try await ChildProcess.run(invoices, ["serve", "--allowed-host", "https://invoices.example.com"])
        #expect(badHost.status == 64)
        #expect(badHost.standardError.contains("--allowed-host takes a host name"), "\(badHost.standardError)")
        let badProxy = try await ChildProcess.run(invoices, ["serve", "--trusted-proxy", "proxy.local"])
        #expect(badProxy.status == 64)
        #expect(badProxy.standardError.contains("--trusted-proxy takes an IP address"), "\(badProxy.standardError)")
    }
}
