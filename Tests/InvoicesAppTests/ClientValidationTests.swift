import Foundation
import ObjectGraph
import Testing
@testable import InvoicesApp

@Suite struct ClientValidationTests {
    @Test func aClientWithANameAndAValidEmailSaves() async throws {
        let failures = try await validationFailures { c in c.makeClient("Acme", email: "billing@acme.example") }
        #expect(failures.isEmpty)
    }

    @Test func aClientWithoutEmailSaves() async throws {
        let failures = try await validationFailures { c in c.makeClient("Acme") }
        #expect(failures.isEmpty)
    }

    @Test func aBlankNameIsRequired() async throws {
        let failures = try await validationFailures { c in c.makeClient("   ") }
        #expect(failures.map(\.property) == ["name"])
        #expect(failures.map(\.message) == ["Name is required."])
    }

    @Test func aNameLongerThan200CharactersIsRefused() async throws {
        let failures = try await validationFailures { c in c.makeClient(String(repeating: "x", count: 201)) }
        #expect(failures.map(\.message) == ["Name must have at most 200 characters (has 201)."])
    }

    @Test func anInvalidEmailIsRefusedWithTheAddressInTheMessage() async throws {
        for email in ["acme", "acme@", "@acme.example", "ac me@acme.example", "acme@example", "a@b@c.de", "acme@.example.com"] {
            let failures = try await validationFailures { c in c.makeClient("Acme", email: email) }
            #expect(failures.map(\.property) == ["email"], "\(email)")
            #expect(failures.first?.message == "Email \"\(email)\" is not a valid address (expected name@example.com).")
        }
    }

    @Test func twoClientsCannotShareAnEmail() async throws {
        let stack = try makeStack()
        try await insert(into: stack) { c in c.makeClient("Acme", email: "billing@acme.example") }
        let context = stack.newImportContext()
        let error = await context.perform { () -> SaveError? in
            context.makeClient("Acme Again", email: "billing@acme.example")
            do { try context.save(); return nil } catch let error as SaveError { return error } catch { return nil }
        }
        guard case .uniquenessViolation(let violation) = error else {
            Issue.record("expected a uniqueness violation, got \(String(describing: error))")
            return
        }
        let (entity, properties) = (violation.entity, violation.properties)
        #expect(entity == "Client")
        #expect(properties == ["email"])
    }

    @Test func otherAddressFieldsHaveLengthLimits() async throws {
        let failures = try await validationFailures { c in
            let client = c.makeClient("Acme")
            client.zip = String(repeating: "9", count: 21)
        }
        #expect(failures.map(\.message) == ["Zip must have at most 20 characters (has 21)."])
    }

    @Test func deletingAClientDeletesItsInvoices() async throws {
        let stack = try await makeFixtureStack()
        let context = stack.newImportContext()
        let remaining = try await context.perform { () throws -> (Int, Int) in
            let acme = try #require(try context.fetch(FetchRequest<Client>(predicate: #Predicate { $0.name == "Acme GmbH" })).first)
            context.delete(acme)
            try context.save()
            return (try context.count(for: FetchRequest<Client>()), try context.count(for: FetchRequest<Invoice>()))
        }
        #expect(remaining.0 == 5)
        #expect(remaining.1 == 6)
    }
}
