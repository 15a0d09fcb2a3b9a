import Foundation
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// A request head written by hand over a plain TCP connection, and what comes back as it
/// arrives: for event streams (URLSession on Linux cannot hand out a response's bytes as they
/// arrive), a `Host` no client library would send, or a body announced but never sent.
/// Blocking reads run on their own thread, never on the concurrency pool, which the server's
/// async handlers need.
final class RawHTTPClient: @unchecked Sendable {
    // @unchecked Sendable: `descriptor` is set once; `received` is only touched under `lock`.
    private let descriptor: Int32
    private let lock = NSLock()
    private var received: [UInt8] = []

    /// Connects to 127.0.0.1:`port` and sends the head of `method path` with the given `Host`
    /// and extra header lines (and no body).
    init(port: Int, method: String = "GET", path: String, host: String = "127.0.0.1", headers: [String] = []) throws {
        descriptor = try connectToLoopback(port: port)
        let request = (["\(method) \(path) HTTP/1.1", "Host: \(host)", "Accept: text/event-stream"] + headers)
            .joined(separator: "\r\n") + "\r\n\r\n"
        let bytes = Array(request.utf8)
        _ = bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, bytes.count, Int32(MSG_NOSIGNAL)) }
    }

    deinit { close(descriptor) }

    /// Everything received so far, as text.
    var text: String { lock.withLock { String(decoding: received, as: UTF8.self) } }

    /// Reads until `marker` has arrived (counting what came before), the server closes, or
    /// `timeout` seconds pass; returns everything received so far.
    func read(until marker: String, timeout: Double) async -> String {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { [self] in
                let deadline = Date().addingTimeInterval(timeout)
                var buffer = [UInt8](repeating: 0, count: 65536)
                while Date() < deadline && !text.contains(marker) {
                    var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                    guard poll(&poller, 1, 20) > 0 else { continue }
                    let count = recv(descriptor, &buffer, buffer.count, 0)
                    if count <= 0 { break }
                    lock.withLock { received.append(contentsOf: buffer[0..<count]) }
                }
                continuation.resume(returning: text)
            }
        }
    }
}
