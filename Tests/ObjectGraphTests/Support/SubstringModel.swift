import Foundation
@testable import ObjectGraph

/// Clients and invoices whose names, identifiers and notes have substring indexes
/// (`.indexedForSubstringSearch`). The entities are called `Client` and `Invoice` inside
/// their own namespace.
enum SubstringIndexed {
    final class Client: ManagedObject {
        @Attribute(.required, .indexedForSubstringSearch) var name: String
        @Attribute var city: String?
        @Relationship(inverse: \Invoice.client, deleteRule: .cascade) var invoices: Set<Invoice>
    }

    final class Invoice: ManagedObject {
        @Attribute(.required, .indexedForSubstringSearch) var identifier: String
        @Attribute(.indexedForSubstringSearch) var notes: String?
        @Attribute var amount: Int = 0
        @Relationship var client: Client?
    }

    static let model = SearchStack.makeModel([Client.self, Invoice.self])
}

/// The same entities without the declaration: the model of files written before it (its hash
/// is `SubstringIndexed.model`'s), and a store whose substring tests scan every row.
enum SubstringScanned {
    final class Client: ManagedObject {
        @Attribute(.required) var name: String
        @Attribute var city: String?
        @Relationship(inverse: \Invoice.client, deleteRule: .cascade) var invoices: Set<Invoice>
    }

    final class Invoice: ManagedObject {
        @Attribute(.required) var identifier: String
        @Attribute var notes: String?
        @Attribute var amount: Int = 0
        @Relationship var client: Client?
    }

    static let model = SearchStack.makeModel([Client.self, Invoice.self])
}

/// Searches of either model, by name: the same predicates as the dashboard's lists.
enum SubstringSearch {
    /// Names of the clients whose name contains `term`, ignoring case.
    static func clients(_ context: ManagedObjectContext, _ term: String) throws -> [String] {
        let names = try context.fetch(FetchRequest<SubstringIndexed.Client>(
            predicate: #Predicate { $0.name.localizedStandardContains(term) })).map(\.name)
        return names.sorted()
    }

    /// Identifiers of the invoices whose identifier, notes or client's name contains `term`.
    static func invoices(_ context: ManagedObjectContext, _ term: String) throws -> [String] {
        try context.fetch(FetchRequest<SubstringIndexed.Invoice>(predicate: invoicePredicate(term)))
            .map(\.identifier).sorted()
    }

    static func invoicePredicate(_ term: String) -> Predicate<SubstringIndexed.Invoice> {
        #Predicate<SubstringIndexed.Invoice> { invoice in
            invoice.identifier.localizedStandardContains(term)
                || invoice.notes?.localizedStandardContains(term) == true
                || invoice.client?.name.localizedStandardContains(term) == true
        }
    }

    /// The same searches through the model without indexes.
    static func scannedClients(_ context: ManagedObjectContext, _ term: String) throws -> [String] {
        try context.fetch(FetchRequest<SubstringScanned.Client>(
            predicate: #Predicate { $0.name.localizedStandardContains(term) })).map(\.name).sorted()
    }

    static func scannedInvoices(_ context: ManagedObjectContext, _ term: String) throws -> [String] {
        try context.fetch(FetchRequest<SubstringScanned.Invoice>(predicate: #Predicate { invoice in
            invoice.identifier.localizedStandardContains(term)
                || invoice.notes?.localizedStandardContains(term) == true
                || invoice.client?.name.localizedStandardContains(term) == true
        })).map(\.identifier).sorted()
    }
}
