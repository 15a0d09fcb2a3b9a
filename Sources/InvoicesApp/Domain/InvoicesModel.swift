import ObjectGraph

/// The object model of the Invoices application, version 3: ``Client``, ``Invoice``,
/// ``LineItem``, ``Payment`` and ``InvoiceSequence``. Files of versions 1 and 2
/// (``InvoicesModelV1``, ``InvoicesModelV2``) are migrated when opened (``plan()``).
public enum InvoicesModel {
    /// The current version.
    public static let version = 3

    /// Builds the model from the entity classes.
    /// - Throws: `ModelError` only if a declaration is inconsistent (a programming error).
    public static func make() throws -> ManagedObjectModel {
        try ManagedObjectModel(entities: [Client.self, Invoice.self, LineItem.self, Payment.self, InvoiceSequence.self], version: version)
    }

    /// One model for the process, built on first use: coordinators of one process share it.
    public static let shared: Result<ManagedObjectModel, any Error> = Result { try make() }
}
