import Foundation
import ObjectGraph

extension InvoicesStack {
    /// Imports a CSV file's invoices through a new import context, merging each saved batch
    /// into writer and main (``mergeImportSave(_:)``), so pages show the rows as they land.
    /// Used by the upload form and by `invoices import`.
    ///
    /// - Throws: ``ImportError`` when the file as a whole cannot be imported.
    @discardableResult
    public func importCSV(_ data: Data, batchSize: Int = 1_000,
                          progress: (@Sendable (ImportProgress) -> Void)? = nil) async throws(ImportError) -> ImportReport {
        let context = newImportContext(name: "import")
        return try await InvoiceImporter(batchSize: batchSize, logger: logger).run(
            csv: data, into: context, progress: progress,
            didSaveBatch: { [self] changes in await mergeImportSave(changes) })
    }

    /// Imports the CSV file at `url` (see ``importCSV(_:batchSize:progress:)``).
    @discardableResult
    public func importCSV(contentsOf url: URL, batchSize: Int = 1_000,
                          progress: (@Sendable (ImportProgress) -> Void)? = nil) async throws(ImportError) -> ImportReport {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            let reason = (error as NSError).localizedFailureReason ?? error.localizedDescription
            throw .unreadable(path: url.path, reason: reason)
        }
        return try await importCSV(data, batchSize: batchSize, progress: progress)
    }
}
