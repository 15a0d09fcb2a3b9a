import Foundation
import Testing
import WebServer

@Suite struct EventStreamTests {
    static let request = "GET /events HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\n\r\n"

    @Test func publishedEventReachesAConnectedClient() async throws {
        let channel = EventChannel()
        try await withServer({ router in
            router.get("/events") { _ in .eventStream(channel.subscribe(to: "news")) }
        }) { server in
            // given a client listening
            let raw = try server.rawConnection()
            raw.send(Self.request)
            let opening = await raw.receive(until: "stream open")
            #expect(opening.hasPrefix("HTTP/1.1 200"))
            #expect(opening.contains("Content-Type: text/event-stream"))
            // when an event is published to its topic
            #expect(channel.publish(ServerSentEvent(event: "invoice", data: "line one\nline two", id: "7"), to: "news") == 1)
            // then the client receives it
            let event = await raw.receive(until: "line two")
            #expect(event.contains("event: invoice\nid: 7\ndata: line one\ndata: line two\n"))
        }
    }

    @Test func manyClientsReceiveTheSameBroadcast() async throws {
        let channel = EventChannel()
        try await withServer({ router in
            router.get("/events") { _ in .eventStream(channel.subscribe(to: "news")) }
        }) { server in
            var connections: [RawConnection] = []
            for _ in 0..<50 {
                let raw = try server.rawConnection()
                raw.send(Self.request)
                connections.append(raw)
            }
            for raw in connections { _ = await raw.receive(until: "stream open") }
            #expect(channel.subscriberCount(of: "news") == 50)
            channel.publish(ServerSentEvent(data: "to everyone"), to: "news")
            for raw in connections {
                #expect(await raw.receive(until: "to everyone").contains("data: to everyone"))
            }
        }
    }

    @Test func idleStreamGetsKeepAliveComments() async throws {
        var configuration = HTTPServer.Configuration()
        configuration.eventStreamKeepAlive = .milliseconds(100)
        try await withServer(configuration: configuration, { router in
            router.get("/events") { _ in .eventStream(EventStream()) }
        }) { server in
            let raw = try server.rawConnection()
            raw.send(Self.request)
            // Every 100 ms; the timeout only bounds a loaded machine's scheduling delays.
            #expect(await raw.receive(until: ": keep-alive", timeout: 20).contains(": keep-alive"))
        }
    }

    @Test func shutdownClosesOpenStreams() async throws {
        let channel = EventChannel()
        try await withServer({ router in
            router.get("/events") { _ in .eventStream(channel.subscribe(to: "news")) }
        }) { server in
            let raw = try server.rawConnection()
            raw.send(Self.request)
            _ = await raw.receive(until: "stream open")
            // when the server shuts down
            await server.server.shutdown()
            // then the stream ends (last chunk) and the connection closes
            #expect(await raw.waitForClose(timeout: 15))
            #expect(channel.subscriberCount(of: "news") == 0)
        }
    }

    @Test func clientThatLeavesIsDroppedFromTheChannel() async throws {
        let channel = EventChannel()
        var configuration = HTTPServer.Configuration()
        configuration.eventStreamKeepAlive = .milliseconds(50)
        try await withServer(configuration: configuration, { router in
            router.get("/events") { _ in .eventStream(channel.subscribe(to: "news")) }
        }) { server in
            do {
                let raw = try server.rawConnection()
                raw.send(Self.request)
                _ = await raw.receive(until: "stream open")
                #expect(channel.subscriberCount(of: "news") == 1)
            }
            // the connection is closed by the client; a keep-alive write finds out
            for _ in 0..<100 where channel.subscriberCount(of: "news") > 0 {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(channel.subscriberCount(of: "news") == 0)
        }
    }
}
