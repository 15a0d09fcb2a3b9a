import Foundation
import Testing
@testable import ObjectGraph

/// Text reaches the store and comes back byte for byte, whatever characters it holds.
@Suite struct TextStorageTests {
    @Test(arguments: TestStore.sqlite) func aStringWithAnEmbeddedNULIsStoredAndReadBackWhole(_ store: TestStore) async throws {
        // Given a model that allows any text in an invoice's notes and identifier
        let location = store.makeLocation()
        let notes = "before\u{0}after \u{0}\u{0} end"
        let coordinator = try location.coordinator()
        let writer = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        try await writer.perform {
            let client = Client(context: writer)
            client.name = "Acme"
            let invoice = Invoice(context: writer)
            invoice.identifier = "INV\u{0}-1"
            invoice.notes = notes
            invoice.client = client
            try writer.save()
        }

        // When another coordinator (nothing cached) reads the store
        let reader = ManagedObjectContext(.privateQueue, coordinator: try location.freshReader(of: coordinator))
        let read = try await reader.perform { () throws -> [String?] in
            let invoices = try reader.fetch(FetchRequest<Invoice>())
            return invoices.flatMap { [$0.identifier, $0.notes] }
        }
        // Then every byte is there, none cut at the first NUL
        #expect(read == ["INV\u{0}-1", notes])

        // And predicates compare the whole value too
        let matches = try await reader.perform { () throws -> [Int] in
            let truncated = "INV", whole = "INV\u{0}-1", tail = "\u{0}-1"
            return [
                try reader.fetch(FetchRequest<Invoice>(predicate: #Predicate { $0.identifier == truncated })).count,
                try reader.fetch(FetchRequest<Invoice>(predicate: #Predicate { $0.identifier == whole })).count,
                try reader.fetch(FetchRequest<Invoice>(predicate: #Predicate { $0.identifier.contains(tail) })).count,
            ]
        }
        #expect(matches == [0, 1, 1])
    }

    @Test(arguments: TestStore.all) func anEmptyStringIsStoredAsEmptyNotNull(_ store: TestStore) async throws {
        let location = store.makeLocation()
        let coordinator = try location.coordinator()
        let writer = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        try await writer.perform {
            let client = Client(context: writer)
            client.name = "Acme"
            client.city = ""
            try writer.save()
        }
        let reader = ManagedObjectContext(.privateQueue, coordinator: try location.freshReader(of: coordinator))
        let city = try await reader.perform { try reader.fetch(FetchRequest<Client>()).first?.city }
        #expect(city == "")
    }
}
