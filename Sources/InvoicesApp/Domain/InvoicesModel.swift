import ObjectGraph

/// The object model of the Invoices application: ``Client``, ``Invoice`` and ``Payment``.
public enum InvoicesModel {
    /// Builds the model from the entity classes.
    /// - Throws: `ModelError` only if a declaration is inconsistent (a programming error).
    public static func make() throws -> ManagedObjectModel {
        try ManagedObjectModel(entities: [Client.self, Invoice.self, Payment.self])
    }

    /// One model for the process, built on first use: coordinators of one process share it.
    public static let shared: Result<ManagedObjectModel, any Error> = Result { try make() }
}
