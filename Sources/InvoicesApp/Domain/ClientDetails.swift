/// A client's values apart from its name, as generated or imported: one type, written to a
/// ``Client`` in one place, so an attribute added to the model is added here once.
public struct ClientDetails: Sendable, Hashable {
    public var email: String?
    public var number: String?
    public var street: String?
    public var zip: String?
    public var city: String?
    public var country: String?

    public init(email: String? = nil, number: String? = nil, street: String? = nil, zip: String? = nil,
                city: String? = nil, country: String? = nil) {
        self.email = email
        self.number = number
        self.street = street
        self.zip = zip
        self.city = city
        self.country = country
    }
}

extension Client {
    /// Writes `name` and `details` (validated when the context saves).
    func assign(name: String, details: ClientDetails) {
        self.name = name
        email = details.email
        number = details.number
        street = details.street
        zip = details.zip
        city = details.city
        country = details.country
    }
}
