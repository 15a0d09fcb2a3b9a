import Foundation
import Logging
import ObjectGraph

/// Imports invoices (and the clients they need) from CSV into a context, in batches.
///
/// Rows are matched to clients by email, then by name (case-insensitively); a row whose
/// client matches nobody creates one. Rows that cannot be imported are skipped and reported
/// with their line and every reason; the valid ones are imported. Each batch is one save, so
/// a large file reaches the store (and the pages) progressively.
///
/// Run it on a root context, normally an import context
/// (``InvoicesStack/newImportContext(name:)``), in the server or in `invoices import`:
/// ```swift
/// let report = try await InvoiceImporter().run(csv: data, into: context) { progress in
///     print(progress.fraction)
/// }
/// ```
public struct InvoiceImporter: Sendable {
    /// Rows per save.
    public var batchSize: Int
    /// Where a store failure is logged whole; the ``ImportError`` says it in words.
    public var logger: Logger
    /// How rows that are not drafts and have no number are numbered.
    public var numbering: InvoiceNumbering

    public init(batchSize: Int = 1_000, numbering: InvoiceNumbering = InvoiceNumbering(),
                logger: Logger = Logger(label: "invoices.import")) {
        self.batchSize = max(1, batchSize)
        self.numbering = numbering
        self.logger = logger
    }

    /// Parses `data` and imports it into `context`.
    ///
    /// - Parameters:
    ///   - progress: called after each batch (on some task; keep it short).
    ///   - didSaveBatch: called with each batch's saved IDs, before the next batch starts:
    ///     where the server merges them into its other contexts.
    /// - Throws: ``ImportError`` when the file as a whole cannot be imported (not UTF-8, no
    ///   header, columns missing) or the store refuses a save for a reason no row explains.
    @discardableResult
    public func run(csv data: Data, into context: ManagedObjectContext,
                    progress: (@Sendable (ImportProgress) -> Void)? = nil,
                    didSaveBatch: (@Sendable (SavedChanges) async -> Void)? = nil) async throws(ImportError) -> ImportReport {
        let file = try ImportFile(data)
        var report = ImportReport()
        report.ignoredColumns = file.header.ignored
        report.totalRows = file.recordCount
        if file.header.isClientFile {
            return try await ClientImport(batchSize: batchSize, logger: logger)
                .run(file, into: context, report: report, progress: progress, didSaveBatch: didSaveBatch)
        }
        let (invoices, unreadable) = file.invoices()
        report.skipped = unreadable
        report.totalInvoices = invoices.count + unreadable.count
        let alreadyHandled = file.recordCount - invoices.reduce(0) { $0 + $1.rowCount }
        progress?(ImportProgress(processedRows: alreadyHandled, totalRows: report.totalRows, importedInvoices: 0))

        var state = BatchState(directory: try await ClientDirectory.load(from: context, logger: logger))
        var processed = alreadyHandled
        var matched = Set<ObjectID>()
        var start = 0
        while start < invoices.count {
            let batch = Array(invoices[start..<min(invoices.count, start + batchSize)])
            start += batch.count
            let input = state, logger = logger, numbering = numbering
            let importedSoFar = report.importedInvoices
            let outcome = try await context.perform { () throws(ImportError) -> BatchOutcome in
                var batchImport = BatchImport(context: context, state: input, numbering: numbering, logger: logger)
                return try batchImport.run(batch, importedBefore: importedSoFar)
            }
            state = outcome.state
            report.importedInvoices += outcome.imported
            report.skipped += outcome.skipped
            report.createdClients += outcome.createdClients
            matched.formUnion(outcome.matchedClients)
            processed += batch.reduce(0) { $0 + $1.rowCount }
            if !outcome.changes.isEmpty { await didSaveBatch?(outcome.changes) }
            progress?(ImportProgress(processedRows: processed, totalRows: report.totalRows,
                                     importedInvoices: report.importedInvoices))
        }
        report.matchedClients = matched.count
        report.skipped.sort { $0.line < $1.line }
        return report
    }

}

/// What one batch hands to the next: values only.
struct BatchState: Sendable {
    var directory: ClientDirectory
    /// Identifiers imported so far, with their line.
    var importedIdentifiers: [String: Int] = [:]
    /// Clients this import created in earlier batches (permanent IDs).
    var createdClientIDs = Set<ObjectID>()
}

/// What one batch did.
struct BatchOutcome: Sendable {
    var state: BatchState
    var imported = 0
    var skipped: [ImportReport.SkippedRow] = []
    var createdClients: [String] = []
    var matchedClients = Set<ObjectID>()
    var changes = SavedChanges()
}
