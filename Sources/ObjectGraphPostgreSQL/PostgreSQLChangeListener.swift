import Foundation
import ObjectGraph
import Synchronization

/// The change signal of a PostgreSQL store: a counter bumped by every `NOTIFY` on the store's
/// channel, which every committing transaction sends (`pg_notify` inside the transaction:
/// delivered only when it commits). Reading it costs an atomic load.
final class PostgreSQLChangeSignal: StoreChangeSignal {
    private let counter = Atomic<Int64>(0)

    var current: Int64 { counter.load(ordering: .acquiring) }

    func bump() { counter.add(1, ordering: .acquiringAndReleasing) }
}

/// Listens on a connection of its own, on a thread of its own, and bumps the signal for each
/// notification. A lost connection counts as a change (notifications may have been missed),
/// and is made again with a growing pause (0.1 s to 2 s) until the server is back.
///
/// `Sendable`: `stopped` is atomic; the connection is used only by the listening thread. The
/// thread holds the listener until ``stop()`` (the store calls it when it goes).
final class PostgreSQLChangeListener: Sendable {
    let signal = PostgreSQLChangeSignal()
    private let stopped = Atomic<Bool>(false)

    /// Connects and listens before returning, so a commit made after this never goes unheard.
    init(conninfo: String, location: String, sessionSetup: String, channel: String) throws {
        let first = try Self.listen(conninfo: conninfo, location: location, sessionSetup: sessionSetup, channel: channel)
        let box = ConnectionBox(first)
        let thread = Thread { [self] in
            run(box.take(), conninfo: conninfo, location: location, sessionSetup: sessionSetup, channel: channel)
        }
        thread.name = "ObjectGraph.PostgreSQLChangeListener"
        thread.start()
    }

    /// Ends the thread at its next wake-up (at most a second).
    func stop() { stopped.store(true, ordering: .releasing) }

    private static func listen(conninfo: String, location: String, sessionSetup: String,
                               channel: String) throws -> PostgreSQLConnection {
        let connection = try PostgreSQLConnection(conninfo: conninfo, location: location, sessionSetup: sessionSetup)
        try connection.execute("LISTEN \(SQLDialect.quote(channel))")
        return connection
    }

    private func run(_ first: PostgreSQLConnection?, conninfo: String, location: String, sessionSetup: String,
                     channel: String) {
        var connection = first
        var pause = 0.1
        while !stopped.load(ordering: .acquiring) {
            guard let listening = connection else {
                Thread.sleep(forTimeInterval: pause)
                pause = min(2, pause * 2)
                do {
                    connection = try Self.listen(conninfo: conninfo, location: location, sessionSetup: sessionSetup,
                                                 channel: channel)
                } catch {
                    continue   // still down: try again after a longer pause
                }
                // Back: what was committed meanwhile went unannounced.
                pause = 0.1
                signal.bump()
                continue
            }
            var poller = pollfd(fd: listening.socket, events: Int16(POLLIN), revents: 0)
            _ = poll(&poller, 1, 1000)
            do {
                if try !listening.notifications().isEmpty { signal.bump() }
            } catch {
                connection = nil
                signal.bump()
            }
        }
    }
}

/// Hands the first connection to the listening thread.
private final class ConnectionBox: @unchecked Sendable {
    // @unchecked Sendable: `connection` is written once in init and taken once by the thread.
    private var connection: PostgreSQLConnection?
    init(_ connection: PostgreSQLConnection) { self.connection = connection }
    func take() -> PostgreSQLConnection? {
        defer { connection = nil }
        return connection
    }
}
