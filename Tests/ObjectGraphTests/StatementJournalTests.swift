import Foundation
import Testing
@testable import ObjectGraph

/// Where the writer's transactions keep their statement journals: in memory for a context's
/// save, in temporary files for the rest (see `SQLiteConnection.transaction`).
@Suite struct StatementJournalTests {
    /// A context's save holds its statement journals in memory (temp_store 2, MEMORY); a
    /// batch request, whose one statement may change every row of a table, keeps temporary
    /// files (0, the default), and the next save goes back to memory.
    @Test func savesJournalInMemoryAndBatchRequestsInFiles() async throws {
        let url = TestStack.fileURL()
        defer { StoreFileState.cleanUp(url) }
        let coordinator = try TestStack.coordinator(at: url)
        #expect(try coordinator.writerPragma("temp_store") == 0)
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        try await context.perform {
            for n in 0..<50 {
                let client = Client(context: context)
                client.name = "Client \(n)"
            }
            try context.save()
        }
        #expect(try coordinator.writerPragma("temp_store") == 2)

        var values = PropertyValues<Client>()
        values.set(\.city, to: "Graz")
        let result = try coordinator.execute(BatchUpdateRequest<Client>(set: values))
        #expect(result.count == 50)
        #expect(try coordinator.writerPragma("temp_store") == 0)

        try await context.perform {
            let client = Client(context: context)
            client.name = "Client 50"
            try context.save()
        }
        #expect(try coordinator.writerPragma("temp_store") == 2)
        let inGraz = try await context.perform {
            try context.count(for: FetchRequest<Client>(predicate: #Predicate { $0.city == "Graz" }))
        }
        #expect(inGraz == 50)
    }
}
