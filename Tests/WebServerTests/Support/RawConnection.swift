import Foundation
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// A plain TCP connection to the test server, for garbage, slow clients, huge headers and
/// hand-written chunked bodies. Blocking calls run on their own thread, never on the
/// concurrency pool, which the server's async handlers need.
final class RawConnection: @unchecked Sendable {
    // @unchecked Sendable: `descriptor` is set once; each call is used by one test at a time.
    let descriptor: Int32

    init(port: Int) throws {
        descriptor = try connectToLoopback(port: port)
    }

    deinit { close(descriptor) }

    /// Sends bytes; returns false if the server has closed the connection.
    @discardableResult
    func send(_ text: String) -> Bool { send(Array(text.utf8)) }

    @discardableResult
    func send(_ bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let count = bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL)) }
            if count <= 0 { return false }
            sent += count
        }
        return true
    }

    /// Reads until the server closes, `until` appears, or `timeout` passes; runs on its own thread.
    func receive(until marker: String? = nil, timeout: Double = 5) async -> String {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { [self] in
                continuation.resume(returning: self.receiveBlocking(until: marker, timeout: timeout))
            }
        }
    }

    /// True if the server closed the connection within `timeout` (reading discards any bytes).
    func waitForClose(timeout: Double) async -> Bool {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { [self] in
                let deadline = Date().addingTimeInterval(timeout)
                var buffer = [UInt8](repeating: 0, count: 4096)
                while Date() < deadline {
                    var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                    guard poll(&poller, 1, 100) > 0 else { continue }
                    let count = recv(descriptor, &buffer, buffer.count, 0)
                    if count <= 0 { continuation.resume(returning: true); return }
                }
                continuation.resume(returning: false)
            }
        }
    }

    private func receiveBlocking(until marker: String?, timeout: Double) -> String {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 50) > 0 else { continue }
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count <= 0 { break }
            received.append(contentsOf: buffer[0..<count])
            if let marker, String(decoding: received, as: UTF8.self).contains(marker) { break }
        }
        return String(decoding: received, as: UTF8.self)
    }
}
