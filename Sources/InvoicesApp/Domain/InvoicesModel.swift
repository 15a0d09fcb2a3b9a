import ObjectGraph

/// The object model of the Invoices application, version 2: ``Client``, ``Invoice``,
/// ``LineItem`` and ``Payment``. Files of version 1 (``InvoicesModelV1``) are migrated when
/// opened (``plan()``).
public enum InvoicesModel {
    /// The current version.
    public static let version = 2

    /// Builds the model from the entity classes.
    /// - Throws: `ModelError` only if a declaration is inconsistent (a programming error).
    public static func make() throws -> ManagedObjectModel {
        try ManagedObjectModel(entities: [Client.self, Invoice.self, LineItem.self, Payment.self], version: version)
    }

    /// One model for the process, built on first use: coordinators of one process share it.
    public static let shared: Result<ManagedObjectModel, any Error> = Result { try make() }
}
