import Foundation
import ObjectGraph
import Testing
@testable import InvoicesApp

@Suite struct ClientDirectoryTests {
    @Test func namesMatchCaseInsensitivelyWithWhiteSpaceCollapsedAndAreConfirmedByTheStoredName() async throws {
        let stack = try InvoicesStack.inMemory()
        let context = stack.newImportContext(name: "test")
        let ids = try await context.perform {
            let acme = Client(context: context)
            acme.name = "Acme  Corp"
            let other = Client(context: context)
            other.name = "Globex"
            try context.save()
            return (acme.objectID, other.objectID)
        }
        let directory = try await ClientDirectory.load(from: context, logger: .init(label: "test"))
        let names = [ids.0: "Acme  Corp", ids.1: "Globex"]
        guard case .existing(let found) = directory.match(email: nil, name: " acme corp", storedName: { names[$0] }) else {
            Issue.record("no match")
            return
        }
        #expect(found == ids.0)
        // A hash that meets another name's (what a collision would look like) is not a match.
        guard case .none = directory.match(email: nil, name: "acme corp", storedName: { _ in "Initech" }) else {
            Issue.record("a name that differs was matched")
            return
        }
        guard case .none = directory.match(email: nil, name: "Umbrella", storedName: { names[$0] }) else {
            Issue.record("an unknown name was matched")
            return
        }
    }

    @Test func emailsAreLookedUpInTheStoreABatchAtATime() async throws {
        let stack = try InvoicesStack.inMemory()
        let context = stack.newImportContext(name: "test")
        try await context.perform {
            let acme = Client(context: context)
            acme.name = "Acme"
            acme.email = "billing@acme.example"
            try context.save()
            var directory = ClientDirectory()
            guard case .none = directory.match(email: "billing@acme.example", name: nil, storedName: { _ in nil }) else {
                Issue.record("matched before the look-up")
                return
            }
            try directory.lookUpEmails(["billing@acme.example", "nobody@example.com"], in: context)
            guard case .existing(let id) = directory.match(email: "billing@acme.example", name: nil, storedName: { _ in nil }) else {
                Issue.record("not matched after the look-up")
                return
            }
            #expect(id == acme.objectID)
        }
    }
}
