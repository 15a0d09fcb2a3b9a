import Foundation
import ObjectGraph

extension InvoicesStack {
    /// Imports a CSV file's invoices through a new import context, merging each saved batch
    /// into writer and main (``mergeImportSave(_:)``), so pages show the rows as they land.
    /// Used by the upload form and by `invoices import`.
    ///
    /// - Parameters:
    ///   - author: who imports, as persistent history and the history pages name them (a
    ///     visitor's label, `invoices import (pid 123)`).
    ///   - name: which import, as the history pages show it (`import: march.csv`).
    /// - Throws: ``ImportError`` when the file as a whole cannot be imported.
    @discardableResult
    public func importCSV(_ data: Data, batchSize: Int = 1_000, author: String = "import", name: String = "import",
                          progress: (@Sendable (ImportProgress) -> Void)? = nil) async throws(ImportError) -> ImportReport {
        try await importCSV(.bytes(data), batchSize: batchSize, author: author, name: name, progress: progress)
    }

    /// Imports the CSV of `source`, a file read a piece at a time or bytes in memory.
    @discardableResult
    public func importCSV(_ source: ImportSource, batchSize: Int = 1_000, author: String = "import", name: String = "import",
                          progress: (@Sendable (ImportProgress) -> Void)? = nil) async throws(ImportError) -> ImportReport {
        let context = newImportContext(name: name)
        context.transactionAuthor = author
        return try await InvoiceImporter(batchSize: batchSize, numbering: numbering, logger: logger).run(
            source, into: context, progress: progress,
            didSaveBatch: { [self] changes in await mergeImportSave(changes) })
    }

    /// Imports the CSV file at `url` (see ``importCSV(_:batchSize:progress:)``).
    @discardableResult
    public func importCSV(contentsOf url: URL, batchSize: Int = 1_000, author: String = "import",
                          progress: (@Sendable (ImportProgress) -> Void)? = nil) async throws(ImportError) -> ImportReport {
        try await importCSV(.file(url), batchSize: batchSize, author: author, name: "import: \(url.lastPathComponent)",
                            progress: progress)
    }
}
