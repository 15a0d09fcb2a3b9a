#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Foundation
import ObjectGraph
import Synchronization

/// Notices commits that other processes (or other coordinators) make to the store file,
/// without polling: inotify says when the database or its WAL is written, and the
/// coordinator's ``PersistentStoreCoordinator/externalCommitMarker()`` (SQLite's
/// `data_version` on the server's own writer connection) says whether the write was someone
/// else's: the server's own saves leave the marker unchanged.
///
/// This is the inspector's stopgap until persistent history (issue 5) merges other processes'
/// transactions into writer and main as change sets with origin `.remote`; the timeline then
/// takes those instead (see ``ContextActivityRecorder/remoteCommitDetected(file:)``).
///
/// Linux only (inotify); elsewhere ``init(coordinator:storeURL:onCommit:)`` returns nil.
///
/// `Sendable`: `lastMarker` and `checkScheduled` are only touched on `queue`; the dispatch
/// source owns the inotify descriptor and closes it when cancelled.
final class RemoteCommitWatcher: @unchecked Sendable {
    private let queue = DispatchQueue(label: "invoices.inspector.remote-commits")
    private let source: DispatchSourceRead
    private let coordinator: PersistentStoreCoordinator
    private let fileNames: Set<String>
    private let onCommit: @Sendable () -> Void
    private var lastMarker: Int64?
    private var checkScheduled = false

    /// Watches the folder of `storeURL`; nil when the file cannot be watched (in-memory
    /// store, no inotify).
    init?(coordinator: PersistentStoreCoordinator, storeURL: URL?, onCommit: @escaping @Sendable () -> Void) {
        #if os(Linux)
        guard let storeURL else { return nil }
        let descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard descriptor >= 0 else { return nil }
        let mask = UInt32(IN_MODIFY) | UInt32(IN_CLOSE_WRITE) | UInt32(IN_CREATE) | UInt32(IN_MOVED_TO)
        guard inotify_add_watch(descriptor, storeURL.deletingLastPathComponent().path, mask) >= 0 else {
            close(descriptor)
            return nil
        }
        self.coordinator = coordinator
        let name = storeURL.lastPathComponent
        fileNames = [name, name + "-wal"]
        self.onCommit = onCommit
        source = DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: queue)
        lastMarker = try? coordinator.externalCommitMarker()
        source.setEventHandler { [weak self] in self?.drain(descriptor) }
        source.setCancelHandler { close(descriptor) }
        source.resume()
        #else
        return nil
        #endif
    }

    /// Stops watching and closes the inotify descriptor.
    func stop() { source.cancel() }

    deinit { source.cancel() }

    /// Reads the pending inotify events (on `queue`); a write to the database or its WAL
    /// schedules one check shortly after, so a burst of writes costs one check.
    private func drain(_ descriptor: Int32) {
        #if os(Linux)
        var buffer = [UInt8](repeating: 0, count: 4096)
        var touched = false
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            var offset = 0
            // struct inotify_event: wd (4), mask (4), cookie (4), len (4), then len bytes of name.
            while offset + 16 <= count {
                let length = buffer.withUnsafeBytes { Int($0.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self)) }
                let nameBytes = buffer[(offset + 16)..<min(count, offset + 16 + length)].prefix { $0 != 0 }
                if fileNames.contains(String(decoding: nameBytes, as: UTF8.self)) { touched = true }
                offset += 16 + length
            }
        }
        guard touched, !checkScheduled else { return }
        checkScheduled = true
        queue.asyncAfter(deadline: .now() + .milliseconds(50)) { [weak self] in self?.check() }
        #endif
    }

    /// Compares the marker with the last reading (on `queue`).
    private func check() {
        checkScheduled = false
        guard let marker = try? coordinator.externalCommitMarker() else { return }
        defer { lastMarker = marker }
        if let lastMarker, marker != lastMarker { onCommit() }
    }
}
