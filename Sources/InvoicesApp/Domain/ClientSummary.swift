import Foundation
import ObjectGraph

/// One client as a list row shows it. `Sendable`, and the row of `/clients.json`.
public struct ClientSummary: Sendable, Hashable, Codable, Identifiable {
    /// The primary key (`/clients/{id}`); 0 for a client not yet in the store.
    public let id: Int64
    public let name: String
    public let email: String?
    public let number: String?
    public let city: String?
    public let country: String?
    public let createdAt: Date

    /// Reads the client's values. Call it on the client's context queue.
    public init(_ client: Client) {
        id = client.objectID.primaryKey ?? 0
        name = client.name
        email = client.email
        number = client.number
        city = client.city
        country = client.country
        createdAt = client.createdAt
    }
}
