import ObjectGraph

/// The client form's table. Labels are said here; lengths and required flags come from
/// ``Client``'s declarations.
extension Client: EditableEntity {
    static var formPath: String { "clients" }
    static var formNoun: String { "client" }

    static var formFields: [FormFieldSpec<Client>] {
        [.text(\.name, label: "Name"),
         .optionalText(\.email, label: "Email", input: .text(type: "email"),
                       duplicateMessage: "Another client already has this email address.") { $0.lowercased() },
         .optionalText(\.number, label: "Client number"),
         .optionalText(\.street, label: "Street"),
         .optionalText(\.zip, label: "Postcode"),
         .optionalText(\.city, label: "City"),
         .optionalText(\.country, label: "Country")]
    }

    static var nestedForms: [NestedFormSpec<Client>] {
        [NestedFormSpec(relationship: \Client.invoices, destination: Invoice.self, title: "Invoices added in this form",
                        addLabel: "Add an invoice")]
    }

    var formTitle: String { name }
}
