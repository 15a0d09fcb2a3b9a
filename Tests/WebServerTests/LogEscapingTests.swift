import Logging
import TestSupport
import Testing
import WebServer

/// What a visitor sends never starts a log line of its own.
@Suite struct LogEscapingTests {
    @Test func controlCharactersAndBackslashesAreEscaped() {
        #expect(LogEscaping.escape("/clients/42?q=a b") == "/clients/42?q=a b")
        #expect(LogEscaping.escape("/\nforged") == "/\\nforged")
        #expect(LogEscaping.escape("a\r\nb\tc") == "a\\r\\nb\\tc")
        #expect(LogEscaping.escape("C:\\n") == "C:\\\\n")
        #expect(LogEscaping.escape("\u{0}\u{1B}[31m\u{7F}\u{85}") == "\\u{0}\\u{1B}[31m\\u{7F}\\u{85}")
        #expect(LogEscaping.escape("a\u{2028}b\u{2029}") == "a\\u{2028}b\\u{2029}")
        #expect(LogEscaping.escape("Zürich €") == "Zürich €")
    }

    @Test func aPathThatDecodesToLineBreaksIsOneEscapedAccessLogLine() async throws {
        let (logger, log) = CapturingLogHandler.logger()
        try await withServer(logger: logger, { router in
            router.get("/hello") { _ in .text("hello") }
        }) { server in
            for target in ["/%0Aforged-log-line", "/%0D%0Aforged-log-line%0D"] {
                let raw = try server.rawConnection()
                raw.send("GET \(target) HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
                let reply = await raw.receive(timeout: 5)
                #expect(reply.hasPrefix("HTTP/1.1 404"))
            }
            let text = log.all.joined(separator: "\n")
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
            let forged = lines.filter { $0.contains("forged-log-line") }
            #expect(forged.count == 2)
            #expect(!text.contains("\r"))
            #expect(forged.allSatisfy { $0.hasPrefix("info GET /") && $0.contains(" 404 ") })
            #expect(forged.first?.hasPrefix("info GET /\\nforged-log-line 404 ") == true)
            #expect(forged.last?.hasPrefix("info GET /\\r\\nforged-log-line\\r 404 ") == true)
        }
    }

    struct QuotingError: Error, CustomStringConvertible {
        let quoted: String
        var description: String { "cannot use \(quoted)" }
    }

    @Test func aHandlerErrorQuotingAHeaderIsOneEscapedLine() async throws {
        let (logger, log) = CapturingLogHandler.logger()
        try await withServer(logger: logger, { router in
            router.get("/fail") { request in throw QuotingError(quoted: request.headers[.userAgent] ?? "") }
        }) { server in
            let raw = try server.rawConnection()
            // A header value may carry other control characters; libmicrohttpd keeps them.
            raw.send("GET /fail HTTP/1.1\r\nHost: localhost\r\nUser-Agent: a\u{1B}[2Jb\u{0B}c\r\nConnection: close\r\n\r\n")
            let reply = await raw.receive(timeout: 5)
            #expect(reply.hasPrefix("HTTP/1.1 500"))
            let line = try #require(log.all.first { $0.contains("Handler failed") })
            #expect(line.contains("cannot use a\\u{1B}[2Jb\\u{B}c"))
            #expect(!line.contains("\u{1B}"))
        }
    }

    @Test func wrappingTwiceEscapesOnce() {
        let (logger, log) = CapturingLogHandler.logger()
        let twice = logger.escapingControlCharacters().escapingControlCharacters()
        twice.info("a\\b\nc", metadata: ["path": "/x\ny"])
        #expect(log.all == ["info a\\\\b\\nc path=/x\\ny"])
    }
}
