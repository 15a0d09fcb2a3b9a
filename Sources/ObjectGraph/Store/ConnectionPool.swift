import Foundation
import Synchronization

/// A store's connections: one writer, and readers that serve fetches concurrently with it
/// (SQLite's WAL mode lets readers see the last committed state while a write is under way;
/// PostgreSQL's readers see the last committed state anyway).
///
/// @unchecked Sendable: a connection is used by one caller at a time: the writer while
/// `writerLock` is held, a reader between `checkout` and `checkin` (`condition` guards
/// `idleReaders` and `readerCount`; a condition variable, not a `Locked`, because a caller
/// waits there for a reader to come back).
package final class ConnectionPool<Connection>: @unchecked Sendable {
    private let writer: Connection
    private let writerLock = Locked()
    private let condition = NSCondition()
    private var idleReaders: [Connection] = []
    private var readerCount = 0
    private let maxReaders: Int
    private let makeReader: (() throws -> Connection)?

    /// - Parameter makeReader: nil when readers must share the writer (in-memory stores).
    package init(writer: Connection, maxReaders: Int, makeReader: (() throws -> Connection)?) {
        self.writer = writer
        self.maxReaders = maxReaders
        self.makeReader = makeReader
    }

    package func write<T>(_ body: (Connection) throws -> T) rethrows -> T {
        try writerLock.withLock { try body(writer) }
    }

    package func read<T>(_ body: (Connection) throws -> T) throws -> T {
        guard let makeReader else { return try write(body) }
        let connection = try checkout(makeReader)
        defer { checkin(connection) }
        return try body(connection)
    }

    private func checkout(_ make: () throws -> Connection) throws -> Connection {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let idle = idleReaders.popLast() { return idle }
            if readerCount < maxReaders {
                readerCount += 1
                do { return try make() } catch { readerCount -= 1; throw error }
            }
            condition.wait()
        }
    }

    private func checkin(_ connection: Connection) {
        condition.lock()
        idleReaders.append(connection)
        condition.signal()
        condition.unlock()
    }
}
