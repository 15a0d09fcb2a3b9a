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
/// Keeps the most recent ones only.
///
/// `Sendable`: `jobs` is only touched while its mutex is held.
final class ImportJobs: Sendable {
    private let jobs = Mutex<[String: ImportJob]>([:])
    private let order = Mutex<[String]>([])
    static let kept = 50

    func start(filename: String) -> String {
        let id = SessionStore.randomToken()
        jobs.withLock { $0[id] = ImportJob(id: id, filename: filename) }
        let dropped: [String] = order.withLock { order in
            order.append(id)
            guard order.count > Self.kept else { return [] }
            let old = Array(order.prefix(order.count - Self.kept))
            order.removeFirst(old.count)
            return old
        }
        if !dropped.isEmpty { jobs.withLock { for id in dropped { $0[id] = nil } } }
        return id
    }

    func update(_ id: String, _ change: @Sendable (inout ImportJob) -> Void) {
        jobs.withLock { all in
            guard var job = all[id] else { return }
            change(&job)
            all[id] = job
        }
    }

    func job(_ id: String) -> ImportJob? { jobs.withLock { $0[id] } }
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
