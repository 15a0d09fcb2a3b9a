import Foundation
import Testing
@testable import ObjectGraph

/// Behaviours that a planted bug could break without any other test noticing (found by
/// mutation testing). Values are read inside `perform` and checked outside it, so a failure
/// is reported against its test.
@Suite struct MutationGuardTests {
    // MARK: Validation

    @Test func aStringOfExactlyTheMaximumLengthSaves() async throws {
        // given a client whose name is exactly as long as `.maxLength(120)` allows
        let coordinator = try TestStack.coordinator()
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        let longest = String(repeating: "x", count: 120)
        // when it is saved
        let failures = await context.perform { () -> [ValidationFailure] in
            Client(context: context).name = longest
            do {
                try context.save()
                return []
            } catch SaveError.validationFailed(let failures) {
                return failures
            } catch {
                return [ValidationFailure(property: nil, message: "unexpected: \(error)")]
            }
        }
        // then nothing is refused, and the name is on disk
        #expect(failures.map(\.message) == [])
        let reader = ManagedObjectContext(.privateQueue, coordinator: try TestStack.coordinator(at: URL(fileURLWithPath: try #require(coordinator.storePath))))
        let stored = try await reader.perform { try reader.fetch(FetchRequest<Client>()).map(\.name) }
        #expect(stored == [longest])
    }

    @Test func oneCharacterPastTheMaximumLengthIsRefused() async throws {
        let context = ManagedObjectContext(.privateQueue, coordinator: try TestStack.coordinator())
        let codes = await context.perform { () -> [ValidationFailure.Code] in
            Client(context: context).name = String(repeating: "x", count: 121)
            do {
                try context.save()
                return []
            } catch SaveError.validationFailed(let failures) {
                return failures.map(\.code)
            } catch {
                return []
            }
        }
        #expect(codes == [.stringTooLong])
    }
}
