import Foundation
import Synchronization

/// The store's connections: one writer, and readers that serve fetches concurrently with it
/// (SQLite's WAL mode lets readers see the last committed state while a write is under way).
///
/// @unchecked Sendable: a connection is used by one caller at a time: the writer while
/// `writerLock` is held, a reader between `checkout` and `checkin` (`condition` guards
/// `idleReaders` and `readerCount`; a condition variable, not a `Locked`, because a caller
/// waits there for a reader to come back).
final class ConnectionPool: @unchecked Sendable {
    private let writer: SQLiteConnection
    private let writerLock = Locked()
    private let condition = NSCondition()
    private var idleReaders: [SQLiteConnection] = []
    private var readerCount = 0
    private let maxReaders: Int
    private let makeReader: (() throws -> SQLiteConnection)?

    /// - Parameter makeReader: nil when readers must share the writer (in-memory stores).
    init(writer: SQLiteConnection, maxReaders: Int, makeReader: (() throws -> SQLiteConnection)?) {
        self.writer = writer
        self.maxReaders = maxReaders
        self.makeReader = makeReader
    }

    func write<T>(_ body: (SQLiteConnection) throws -> T) rethrows -> T {
        try writerLock.withLock { try body(writer) }
    }

    func read<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        guard let makeReader else { return try write(body) }
        let connection = try checkout(makeReader)
        defer { checkin(connection) }
        return try body(connection)
    }

    private func checkout(_ make: () throws -> SQLiteConnection) throws -> SQLiteConnection {
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

    private func checkin(_ connection: SQLiteConnection) {
        condition.lock()
        idleReaders.append(connection)
        condition.signal()
        condition.unlock()
    }
}
