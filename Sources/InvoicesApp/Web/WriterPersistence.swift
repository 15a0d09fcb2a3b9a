import Foundation
import ObjectGraph
import Synchronization

/// When the writer's changes reach the file (`--persist`): at once, before the request
/// answers, or at most so many seconds later (one flush for all the saves meanwhile).
///
/// `Sendable`: `pending` (the scheduled flush) is only touched while its mutex is held.
final class WriterPersistence: Sendable {
    let mode: PersistMode
    let writer: ManagedObjectContext
    private let pending = Mutex<Task<Void, Never>?>(nil)

    init(mode: PersistMode, writer: ManagedObjectContext) {
        self.mode = mode
        self.writer = writer
    }

    /// Called after main saved into the writer. Immediate: saves the writer now (on its own
    /// queue) and returns once the change is on disk. Deferred: schedules a flush.
    /// - Throws: the writer's `SaveError` (immediate mode).
    func writerChanged() async throws {
        switch mode {
        case .immediate:
            try await flush()
        case .deferred(let seconds):
            pending.withLock { task in
                guard task == nil else { return }
                task = Task { [self] in
                    try? await Task.sleep(for: .seconds(seconds))
                    pending.withLock { $0 = nil }
                    try? await flush()
                }
            }
        }
    }

    /// Saves what the writer holds to the file, on the writer's queue.
    func flush() async throws {
        let writer = self.writer
        try await writer.perform { if writer.hasChanges { try writer.save() } }
    }

    /// Cancels a scheduled flush and flushes now (shutdown).
    func flushNow() async throws {
        let task = pending.withLock { task -> Task<Void, Never>? in
            defer { task = nil }
            return task
        }
        task?.cancel()
        try await flush()
    }
}
