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
        let parsed: [CSVRow]
        do { parsed = try CSVParser.parse(data) } catch { throw .notUTF8(line: Self.line(of: error)) }
        guard let first = parsed.first else { throw .empty }
        guard case .record(let headerRecord) = first else {
            if case .malformed(let syntax) = first { throw .malformedHeader(syntax) }
            throw .empty
        }
        let header = try InvoiceCSVHeader(headerRecord)

        var report = ImportReport()
        report.ignoredColumns = header.ignored
        report.totalRows = parsed.count - 1
        var rows: [InvoiceCSVRow] = []
        rows.reserveCapacity(parsed.count)
        for row in parsed.dropFirst() {
            switch row {
            case .malformed(let syntax):
                report.skipped.append(.init(line: syntax.line, reasons: [Self.sentence(syntax.reason)]))
            case .record(let record):
                switch InvoiceCSVRow.read(record, header: header) {
                case .success(let row): rows.append(row)
                case .failure(let skipped): report.skipped.append(skipped)
                }
            }
        }
        let unreadable = report.skipped.count
        progress?(ImportProgress(processedRows: unreadable, totalRows: report.totalRows, importedInvoices: 0))

        var state: BatchState
        do {
            state = try await context.perform { () throws -> BatchState in
                var directory = ClientDirectory()
                for client in try context.fetch(FetchRequest<Client>()) {
                    directory.add(client.objectID, name: client.name, email: client.email)
                }
                return BatchState(directory: directory)
            }
        } catch {
            throw .store(error, importedBefore: 0, logger: logger)
        }

        var processed = unreadable
        var matched = Set<ObjectID>()
        var start = 0
        while start < rows.count {
            let batch = Array(rows[start..<min(rows.count, start + batchSize)])
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
            processed += batch.count
            if !outcome.changes.isEmpty { await didSaveBatch?(outcome.changes) }
            progress?(ImportProgress(processedRows: processed, totalRows: report.totalRows,
                                     importedInvoices: report.importedInvoices))
        }
        report.matchedClients = matched.count
        report.skipped.sort { $0.line < $1.line }
        return report
    }

    private static func line(of error: CSVFileError) -> Int {
        switch error { case .notUTF8(let line): return line }
    }

    /// "a quote inside..." → "A quote inside...".
    static func sentence(_ text: String) -> String { text.prefix(1).uppercased() + text.dropFirst() }
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
