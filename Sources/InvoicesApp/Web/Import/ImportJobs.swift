import Foundation
import Synchronization

/// Where an upload's import is: progress while it runs, then its report or why it failed.
struct ImportJob: Sendable {
    let id: String
    let filename: String
    var progress: ImportProgress?
    var report: ImportReport?
    var failure: String?

    var isFinished: Bool { report != nil || failure != nil }
}

/// The imports started from the upload page, by ID, so their page can show the progress.
/// Keeps the most recent ones only, and runs at most ``maximumRunning`` at once: each holds
/// its whole upload (up to 32 MB) in memory while it runs.
///
/// `Sendable`: the jobs and their order are one `State`, only touched while its mutex is held.
final class ImportJobs: Sendable {
    private struct State {
        var jobs: [String: ImportJob] = [:]
        /// Oldest first: the ones dropped past ``kept``.
        var order: [String] = []
    }
    private let state = Mutex(State())
    static let kept = 50
    /// Imports running at once; another upload meanwhile is refused (503) until one finishes.
    static let maximumRunning = 2

    /// A new job's ID, or nil when ``maximumRunning`` imports are running.
    func start(filename: String) -> String? {
        let id = Tokens.random()
        return state.withLock { state -> String? in
            guard state.jobs.values.filter({ !$0.isFinished }).count < Self.maximumRunning else { return nil }
            state.jobs[id] = ImportJob(id: id, filename: filename)
            state.order.append(id)
            // Finished jobs go first; a running one is kept until it finishes.
            while state.order.count > Self.kept, let oldest = state.order.firstIndex(where: { state.jobs[$0]?.isFinished != false }) {
                state.jobs[state.order.remove(at: oldest)] = nil
            }
            return id
        }
    }

    func update(_ id: String, _ change: @Sendable (inout ImportJob) -> Void) {
        state.withLock { state in
            guard var job = state.jobs[id] else { return }
            change(&job)
            state.jobs[id] = job
        }
    }

    func job(_ id: String) -> ImportJob? { state.withLock { $0.jobs[id] } }
}

/// `/imports/{id}`: a progress bar while the import runs (the page reloads itself every
/// second, no script), then the report with the skipped rows and their line numbers.
struct ImportPage: Sendable {
    let filename: String
    let running: Bool
    let processed: Int
    let total: Int
    let percent: Int
    let summary: String?
    let failure: String?
    let skipped: [String]
    let hasSkipped: Bool

    init(_ job: ImportJob) {
        filename = job.filename
        running = !job.isFinished
        processed = job.progress?.processedRows ?? 0
        total = job.progress?.totalRows ?? 0
        percent = Int(((job.progress?.fraction ?? 0) * 100).rounded())
        summary = job.report?.summary
        failure = job.failure
        skipped = job.report?.skipped.map(\.description) ?? []
        hasSkipped = !skipped.isEmpty
    }
}
