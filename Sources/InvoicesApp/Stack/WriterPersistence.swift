import Foundation
import Logging
import ObjectGraph
import Synchronization

/// When the writer's changes reach the file (`--persist`), and what happens when they cannot.
///
/// With immediate persistence every save goes through to the file before it is acknowledged
/// (``InvoicesStack/save(_:policy:)``), and the writer holds nothing. With deferred
/// persistence saves stop in the writer, and a flush writes them at most so many seconds
/// later. A flush that meets a conflict or a duplicate in the file sets those objects'
/// changes aside (``SetAsideChange``) and writes the rest, so later saves keep flowing; any
/// other failure (busy, I/O) keeps the changes in the writer, is logged, and is retried.
/// Nothing is ever dropped without saying so: ``stop()`` lists what is not on disk.
///
/// `Sendable`: `state` is only touched while its mutex is held; flushes run inside one block
/// of the writer's queue each, so two never interleave.
final class WriterPersistence: Sendable {
    let mode: PersistMode
    let writer: ManagedObjectContext
    let main: ManagedObjectContext
    private let logger: Logger
    /// The clock a deferred flush waits on.
    private let timekeeper: Timekeeper
    /// Called when what pages show may have changed without a notification (a change set
    /// aside or discarded).
    private let onChange: @Sendable () -> Void

    private struct State {
        var scheduled: Task<Void, Never>?
        var setAside: [SetAsideChange] = []
        /// The last flush's failure, until a flush succeeds.
        var failure: String?
    }
    private let state = Mutex(State())

    init(mode: PersistMode, writer: ManagedObjectContext, main: ManagedObjectContext, logger: Logger,
         timekeeper: Timekeeper = .continuous, onChange: @escaping @Sendable () -> Void) {
        self.timekeeper = timekeeper
        self.mode = mode
        self.writer = writer
        self.main = main
        self.logger = logger
        self.onChange = onChange
    }

    /// What a flush came to.
    struct FlushReport: Sendable {
        /// Changes set aside by this flush.
        var setAside: [SetAsideChange] = []
        /// Why the writer's remaining changes could not be written (they stay in the writer).
        var failure: String?
    }

    // MARK: Flushing

    /// A save reached the writer: with deferred persistence, a flush is due within the interval.
    func writerChanged() {
        guard case .deferred(let seconds) = mode else { return }
        schedule(after: seconds)
    }

    private func schedule(after seconds: Double) {
        state.withLock { state in
            guard state.scheduled == nil else { return }
            state.scheduled = Task { [self] in
                do { try await timekeeper.sleep(.seconds(seconds)) } catch { return }   // cancelled: stop() flushes
                self.state.withLock { $0.scheduled = nil }
                let report = await flush()
                if report.failure != nil { schedule(after: seconds) }
            }
        }
    }

    /// Writes what the writer holds to the file, setting aside what conflicts.
    @discardableResult
    func flush() async -> FlushReport {
        let writer = self.writer
        let report = await writer.perform(schedule: .enqueued) { () -> FlushReport in
            var report = FlushReport()
            while writer.hasChanges {
                do {
                    try writer.save()
                    break
                } catch SaveError.mergeConflict(let conflicts) {
                    report.setAside += Self.takeOut(conflicts.map { ($0.objectID, .conflict($0)) }, from: writer)
                } catch SaveError.uniquenessViolation(let violation) {
                    guard let id = violation.objectID else {
                        report.failure = violation.description
                        break
                    }
                    report.setAside += Self.takeOut([(id, .duplicate(violation))], from: writer)
                } catch {
                    report.failure = "\(error)"
                    break
                }
            }
            return report
        }
        await settle(report)
        return report
    }

    /// Takes the changes of these objects out of the writer (which then holds the file's
    /// values for them again). On the writer's queue.
    private static func takeOut(_ objects: [(ObjectID, SetAsideChange.Reason)],
                                from writer: ManagedObjectContext) -> [SetAsideChange] {
        let ids = Set(objects.map(\.0))
        let changes = writer.unsavedChanges(of: ids)
        writer.rollback(ids)
        for id in ids {
            if let object = writer.registeredObject(for: id) { writer.refresh(object, mergeChanges: true) }
        }
        return objects.compactMap { id, reason in
            changes.changes.first { $0.objectID == id }.map {
                SetAsideChange(id: Tokens.random(), change: $0, reason: reason)
            }
        }
    }

    /// Records and tells what a flush did: set-aside changes (log, main refreshed, pages
    /// renewed), a failure (log), or recovery from one.
    private func settle(_ report: FlushReport) async {
        let recovered: String? = state.withLock { state in
            state.setAside += report.setAside
            defer { state.failure = report.failure }
            return report.failure == nil ? state.failure : nil
        }
        for change in report.setAside {
            logger.warning("Set aside, not on disk: \(change.summary). Everything else was written; resolve it on the object's page.")
        }
        if let failure = report.failure {
            let writer = self.writer
            let waiting = await writer.perform {
                writer.insertedObjects.count + writer.updatedObjects.count + writer.deletedObjects.count
            }
            logger.error("The writer could not write \(waiting) changed object(s) to the file: \(failure). They stay in the writer; the next flush tries again.")
        } else if let recovered {
            logger.notice("The writer wrote its changes to the file again (the last flush had failed: \(recovered)).")
        }
        guard !report.setAside.isEmpty else { return }
        // Main shows the file's values for them again (its copies came from the writer).
        let ids = Set(report.setAside.map(\.objectID)), main = self.main
        await main.perform(schedule: .enqueued) {
            main.mergeChanges(ChangeSet(origin: .merge, context: "writer", inserted: [], updated: ids, deleted: []))
        }
        onChange()
    }

    // MARK: Set-aside changes

    /// The changes set aside and not resolved yet, oldest first.
    var setAside: [SetAsideChange] { state.withLock { $0.setAside } }

    /// The last flush's failure, while the writer still holds changes it could not write.
    var failure: String? { state.withLock { $0.failure } }

    func setAsideChange(id: String) -> SetAsideChange? {
        state.withLock { $0.setAside.first { $0.id == id } }
    }

    /// The set-aside changes of one object.
    func setAside(for objectID: ObjectID) -> [SetAsideChange] {
        state.withLock { $0.setAside.filter { $0.objectID == objectID } }
    }

    /// Forgets a set-aside change: resolved (saved again) or discarded by the user.
    func forget(_ id: String, because reason: String) {
        let removed = state.withLock { state -> SetAsideChange? in
            guard let index = state.setAside.firstIndex(where: { $0.id == id }) else { return nil }
            return state.setAside.remove(at: index)
        }
        if let removed {
            logger.notice("Set-aside change \(removed.objectID) \(reason).")
            onChange()
        }
    }

    // MARK: Stopping

    /// Cancels a scheduled flush and flushes now, then lists every acknowledged change that
    /// is not on disk: set aside, or still in the writer after a failed flush.
    func stop() async -> [String] {
        let task = state.withLock { state -> Task<Void, Never>? in
            defer { state.scheduled = nil }
            return state.scheduled
        }
        task?.cancel()
        await flush()
        let writer = self.writer
        let stranded = await writer.perform { () -> [String] in
            let ids = Set(writer.insertedObjects.map(\.objectID) + writer.updatedObjects.map(\.objectID)
                + writer.deletedObjects.map(\.objectID))
            return writer.unsavedChanges(of: ids).changes.map(Self.describe)
        }
        let failure = self.failure.map { " (\($0))" } ?? ""
        return setAside.map(\.summary) + stranded.map { $0 + ": still in the writer" + failure }
    }

    /// `Invoice/p7 (updated): amount, notes`.
    static func describe(_ change: UnsavedChanges.Change) -> String {
        let names = change.changedProperties.filter { !$0.value.isReferenceList }.map(\.name)
        return "\(change.objectID) (\(change.kind.rawValue))" + (names.isEmpty ? "" : ": " + names.joined(separator: ", "))
    }
}
