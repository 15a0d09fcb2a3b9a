/// How far an import is, reported after each saved batch.
public struct ImportProgress: Sendable, Hashable {
    /// Data rows handled so far (imported or skipped).
    public let processedRows: Int
    public let totalRows: Int
    public let importedInvoices: Int

    /// From 0 to 1.
    public var fraction: Double { totalRows == 0 ? 1 : Double(processedRows) / Double(totalRows) }
}
