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

    /// Parses `data` and imports it into `context` (see ``run(_:into:progress:didSaveBatch:)``).
    @discardableResult
    public func run(csv data: Data, into context: ManagedObjectContext,
                    progress: (@Sendable (ImportProgress) -> Void)? = nil,
                    didSaveBatch: (@Sendable (SavedChanges) async -> Void)? = nil) async throws(ImportError) -> ImportReport {
        try await run(.bytes(data), into: context, progress: progress, didSaveBatch: didSaveBatch)
    }

    /// Reads the CSV of `source` and imports it into `context`, a batch at a time: the file
    /// is read twice (counted and checked first, then imported) a piece at a time, so memory
    /// holds a batch, not the file.
    ///
    /// - Parameters:
    ///   - progress: called after each batch (on some task; keep it short).
    ///   - didSaveBatch: called with each batch's saved IDs, before the next batch starts:
    ///     where the server merges them into its other contexts.
    /// - Throws: ``ImportError`` when the file as a whole cannot be imported (unreadable, not
    ///   UTF-8, no header, columns missing) or the store refuses a save for a reason no row
    ///   explains.
    @discardableResult
    public func run(_ source: ImportSource, into context: ManagedObjectContext,
                    progress: (@Sendable (ImportProgress) -> Void)? = nil,
                    didSaveBatch: (@Sendable (SavedChanges) async -> Void)? = nil) async throws(ImportError) -> ImportReport {
        let file = try ImportFile(source)
        var report = ImportReport()
        report.ignoredColumns = file.header.ignored
        report.totalRows = file.recordCount
        if file.header.isClientFile {
            return try await ClientImport(batchSize: batchSize, logger: logger)
                .run(file, into: context, report: report, progress: progress, didSaveBatch: didSaveBatch)
        }
        var run = ImportRun(context: context, numbering: numbering, logger: logger,
                            directory: try await ClientDirectory.load(from: context, logger: logger))
        let reader = ImportBatchReader(try file.records(), header: file.header, batchSize: batchSize)
        var reported = 0
        progress?(ImportProgress(processedRows: 0, totalRows: report.totalRows, importedInvoices: 0))
        // The next batch is read while this one saves.
        var upcoming = Self.read(reader)
        while let batch = try await upcoming.value.get() {
            upcoming = Self.read(reader)
            report.skipped += batch.skipped
            if !batch.invoices.isEmpty {
                do {
                    try await run.save(batch.invoices, into: &report, didSaveBatch: didSaveBatch)
                } catch {
                    upcoming.cancel()
                    throw error
                }
            }
            FreedMemory.release()
            reported = batch.isLast ? report.totalRows : batch.handledRows
            progress?(ImportProgress(processedRows: reported, totalRows: report.totalRows,
                                     importedInvoices: report.importedInvoices))
        }
        report.totalInvoices = await reader.invoiceCount
        report.matchedClients = run.matched.count
        report.skipped.sort { $0.line < $1.line }
        if reported < report.totalRows {
            progress?(ImportProgress(processedRows: report.totalRows, totalRows: report.totalRows,
                                     importedInvoices: report.importedInvoices))
        }
        return report
    }
}

extension InvoiceImporter {
    /// The reader's next batch, read on a task of its own.
    fileprivate static func read(_ reader: ImportBatchReader) -> Task<Result<ImportBatchReader.Batch?, ImportError>, Never> {
        Task {
            do throws(ImportError) { return .success(try await reader.next()) } catch { return .failure(error) }
        }
    }
}

/// What an import carries from one batch to the next: values only.
private struct ImportRun {
    let context: ManagedObjectContext
    let numbering: InvoiceNumbering
    let logger: Logger
    var state: BatchState
    var matched = Set<ObjectID>()

    init(context: ManagedObjectContext, numbering: InvoiceNumbering, logger: Logger, directory: ClientDirectory) {
        self.context = context
        self.numbering = numbering
        self.logger = logger
        state = BatchState(directory: directory)
    }

    /// Imports one batch in one block of the context, and adds what it did to `report`.
    mutating func save(_ batch: [ImportedInvoice], into report: inout ImportReport,
                       didSaveBatch: (@Sendable (SavedChanges) async -> Void)?) async throws(ImportError) {
        let input = state, logger = logger, numbering = numbering, context = context
        let importedSoFar = report.importedInvoices
        let outcome = try await context.perform { () throws(ImportError) -> BatchOutcome in
            var batchImport = BatchImport(context: context, state: input, numbering: numbering, logger: logger)
            let outcome = try batchImport.run(batch, importedBefore: importedSoFar)
            // The next batch needs values only (IDs, names): the objects go, so memory holds
            // one batch whatever the file's size.
            context.reset()
            return outcome
        }
        state = outcome.state
        report.importedInvoices += outcome.imported
        report.skipped += outcome.skipped
        report.createdClients += outcome.createdClients
        matched.formUnion(outcome.matchedClients)
        if !outcome.changes.isEmpty { await didSaveBatch?(outcome.changes) }
    }
}

/// What one batch hands to the next: values only.
struct BatchState: Sendable {
    var directory: ClientDirectory
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
