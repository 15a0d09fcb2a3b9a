import Foundation
import HTTPTypes
import Testing
import WebServer

/// Separators are the ASCII bytes the protocols name, never characters Swift finds equal to
/// them (U+037E is canonically `;`; CR LF is one Character, equal to neither CR nor LF).
/// The cookie case was found by the cookies fuzz target; the others by looking for the
/// same mistake.
@Suite struct UnicodeSeparatorTests {
    @Test func aGreekQuestionMarkInACookieDoesNotStartAnotherCookie() {
        let request = Request(method: .get, path: "/", headers: [.cookie: "theme=dark\u{37E}sid=forged; lang=de"])
        #expect(request.cookies == ["theme": "dark\u{37E}sid=forged", "lang": "de"])
    }

    @Test func aGreekQuestionMarkDoesNotEndTheMediaType() throws {
        let request = Request(method: .post, path: "/", headers: [.contentType: "text/plain\u{37E} multipart/form-data"])
        #expect(request.contentType == "text/plain\u{37E} multipart/form-data")
        #expect(throws: HTTPError.self) { try request.form() }
    }

    @Test func lineBreaksInAnEventCannotInjectFields() async throws {
        let channel = EventChannel()
        try await withServer({ router in
            router.get("/events") { _ in .eventStream(channel.subscribe(to: "news")) }
        }) { server in
            let raw = try server.rawConnection()
            raw.send("GET /events HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\n\r\n")
            _ = await raw.receive(until: "stream open")
            let event = ServerSentEvent(event: "note\r\ndata: forged", data: "one\r\nevent: forged\rtwo\n\nlast", id: "7\r\nretry: 1")
            #expect(channel.publish(event, to: "news") == 1)
            let received = await raw.receive(until: "data: last\n\n")
            #expect(received.contains("event: notedata: forged\nid: 7retry: 1\n"
                                      + "data: one\ndata: event: forged\ndata: two\ndata: \ndata: last\n\n"))
        }
    }
}
