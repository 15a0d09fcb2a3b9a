import Foundation
import ObjectGraph

/// The fields of the client form: reading a client's values as text, applying typed text.
/// Both run on the scratchpad's queue.
enum ClientFormFields {
    /// The inputs, in page order, with their labels and length limits.
    static let inputs: [(name: String, label: String, type: String, maxLength: Int, required: Bool)] = [
        ("name", "Name", "text", 200, true),
        ("email", "Email", "email", 254, false),
        ("number", "Client number", "text", 40, false),
        ("street", "Street", "text", 200, false),
        ("zip", "Postcode", "text", 20, false),
        ("city", "City", "text", 100, false),
        ("country", "Country", "text", 100, false),
    ]

    /// The client's values as the inputs show them.
    static func values(of client: Client) -> [String: String] {
        ["name": client.name, "email": client.email ?? "", "number": client.number ?? "",
         "street": client.street ?? "", "zip": client.zip ?? "", "city": client.city ?? "",
         "country": client.country ?? ""]
    }

    /// Applies the submitted text to the client (fields not submitted stay as they are).
    /// Returns the inputs that could not be read (none for a client: every text is a value).
    static func apply(_ input: [String: String], to client: Client) -> [FieldInputError] {
        if let name = input["name"] {
            let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
            if client.name != trimmed { client.name = trimmed }
        }
        func set(_ key: String, _ keyPath: ReferenceWritableKeyPath<Client, String?>, transform: (String) -> String = { $0 }) {
            guard let text = input[key] else { return }
            let value = FieldInput.optionalText(text).map(transform)
            if client[keyPath: keyPath] != value { client[keyPath: keyPath] = value }
        }
        set("email", \.email) { $0.lowercased() }
        set("number", \.number)
        set("street", \.street)
        set("zip", \.zip)
        set("city", \.city)
        set("country", \.country)
        return []
    }

    /// The form's fields for these values and errors.
    static func fields(values: [String: String], errors: [String: String]) -> [FormField] {
        inputs.map { input in
            FormField(name: input.name, label: input.label, type: input.type, value: values[input.name] ?? "",
                      error: errors[input.name], required: input.required, maxLength: input.maxLength)
        }
    }
}
