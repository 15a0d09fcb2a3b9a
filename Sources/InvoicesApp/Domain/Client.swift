import Foundation
import ObjectGraph

/// A customer that invoices are sent to.
///
/// Rules checked at save: a name is required; the email is optional but, when present, a
/// valid address used by no other client; every text is one line, without control
/// characters. Deleting a client deletes its invoices.
public final class Client: ManagedObject {
    /// Every change is kept with its old and new values: the object's history page reads them.
    override public class var recordsValuesInHistory: Bool { true }

    /// The name invoices are addressed to (a company or a person). Indexed: the client list
    /// is sorted by it by default, and a page of 50 then reads 50 rows instead of sorting all.
    @Attribute(.required, .singleLine, .maxLength(200), .indexed, .indexedForSubstringSearch) public var name: String
    /// Lower case (see ``EmailAddress/normalized(_:)``); unique among clients.
    @Attribute(.unique, .singleLine, .maxLength(254), .indexedForSubstringSearch) public var email: String?
    /// The client's number in the user's own books ("C-0042").
    @Attribute(.singleLine, .maxLength(40), .indexedForSubstringSearch) public var number: String?
    @Attribute(.singleLine, .maxLength(200)) public var street: String?
    @Attribute(.singleLine, .maxLength(20)) public var zip: String?
    @Attribute(.singleLine, .maxLength(100)) public var city: String?
    /// The country's name, as people write it ("Switzerland").
    @Attribute(.singleLine, .maxLength(100)) public var country: String?
    @Attribute public var createdAt: Date = Date()
    @Relationship(inverse: \Invoice.client, deleteRule: .cascade) public var invoices: Set<Invoice>

    public override func validate() -> [ValidationFailure] {
        var failures: [ValidationFailure] = []
        if let email, !EmailAddress.isValid(email) {
            failures.append(ValidationFailure(
                property: "email", message: "Email \(EchoedInput.quoted(email)) is not a valid address (expected name@example.com)."))
        }
        return failures
    }
}
