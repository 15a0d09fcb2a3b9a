import Logging

/// Why a whole import failed (nothing was imported, or only the batches saved before the
/// failure). Problems with single rows are not errors: they are in ``ImportReport/skipped``.
public enum ImportError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file could not be read.
    case unreadable(path: String, reason: String)
    /// The file is not UTF-8 text.
    case notUTF8(line: Int)
    /// The file has no header record.
    case empty
    /// The header record itself is malformed.
    case malformedHeader(CSVSyntaxError)
    /// Required columns are missing from the header.
    case missingColumns([String], found: [String])
    /// A column is named twice in the header.
    case duplicateColumn(String)
    /// The store refused a save for a reason no row explains (disk full, locked, ...), in
    /// words for people (``StoreFailureReason``; the error itself is logged).
    /// `importedBefore` invoices of earlier batches were saved.
    case store(reason: String, importedBefore: Int)

    public var description: String {
        switch self {
        case .unreadable(let path, let reason):
            return "Cannot read \(path): \(reason)."
        case .notUTF8(let line):
            return CSVFileError.notUTF8(line: line).description
        case .empty:
            return "The file is empty: it needs a header line naming the columns, for example: \(InvoiceCSVColumn.exampleHeader)"
        case .malformedHeader(let error):
            return "The header line cannot be read (\(error.description)). It must name the columns, for example: \(InvoiceCSVColumn.exampleHeader)"
        case .missingColumns(let missing, let found):
            return "The header lacks the column\(missing.count == 1 ? "" : "s") \(missing.joined(separator: ", ")) "
                + "(found: \(found.isEmpty ? "none" : found.joined(separator: ", "))). "
                + "Expected columns: \(InvoiceCSVColumn.exampleHeader)."
        case .duplicateColumn(let name):
            return "The header names the column \(name) twice; keep one."
        case .store(let reason, let importedBefore):
            return "The database refused the import: \(reason)."
                + (importedBefore > 0 ? " \(importedBefore) invoices of earlier batches were imported." : " Nothing was imported.")
        }
    }
}

extension ImportError {
    /// `.store` for an error the store threw: the reason in words for whoever imports, the
    /// error itself (which may hold SQL and paths) in the log for whoever runs the server.
    static func store(_ error: any Error, importedBefore: Int, logger: Logger) -> ImportError {
        logger.error("An import stopped after \(importedBefore) invoices: the database refused it: \(error)")
        return .store(reason: StoreFailureReason.describe(error), importedBefore: importedBefore)
    }
}
