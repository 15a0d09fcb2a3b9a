import CFailingVFS
import CSQLite
import Foundation
import Testing
@testable import ObjectGraph

/// `saveToStore()` from three levels down, with the store refusing the write: every
/// ancestor is left exactly as it was (its own unsaved changes included), nothing reaches
/// the file, and the child keeps its changes to try again.
@Suite(.serialized) struct SaveThroughFailureTests {
    /// Runs a failing save through and checks what must hold after any failure.
    /// - Returns: the error thrown.
    private func failingSave(_ stack: DeepStack, _ seed: DeepStack.Seed, objects: [ObjectID],
                             sameAncestors: Bool = true) async throws -> SaveError {
        let ancestorsBefore = await stack.ancestorStates(objects)
        let childBefore = await DeepStack.state(of: stack.child)
        let storedBefore = try await stack.storedNames()
        var thrown: SaveError?
        do {
            try await stack.child.saveToStore()
            Issue.record("the save through should have failed")
        } catch let error as SaveError {
            thrown = error
        }
        if sameAncestors { #expect(await stack.ancestorStates(objects) == ancestorsBefore) }
        #expect(await DeepStack.state(of: stack.child) == childBefore)
        #expect(try await stack.storedNames() == storedBefore)
        return try #require(thrown)
    }

    /// The child's changes, once the failure is gone: the same save goes through, and each
    /// ancestor still holds its own unsaved change.
    private func retrySucceeds(_ stack: DeepStack, _ seed: DeepStack.Seed) async throws {
        try await stack.child.saveToStore()
        let stored = try await stack.storedNames()
        #expect(stored.clients.isSuperset(of: ["Acme (child)", "New from child"]))
        #expect(stored.invoices.contains("N-1"))
        #expect(!stored.clients.contains("Writer's own"))
        #expect(await stack.writer.perform { stack.writer.insertedObjects.count } == 1)
        #expect(try await stack.main.perform { try stack.main.existingObject(with: seed.beta, as: Client.self).city }
            == "Main's city")
        #expect(await stack.main.perform { stack.main.hasChanges })
        #expect(await stack.child.perform { stack.child.hasChanges } == false)
    }

    @Test func aConflictWithAnotherCoordinatorLeavesTheAncestorsAndRefreshesTheirBases() async throws {
        let stack = try DeepStack()
        let seed = try await stack.seed()
        _ = try await stack.childEdits(seed)
        // Another coordinator renames Acme in the file meanwhile.
        let other = try TestStack.coordinator(at: stack.url)
        let otherContext = ManagedObjectContext(.privateQueue, coordinator: other)
        try await otherContext.perform {
            try otherContext.existingObject(with: seed.acme, as: Client.self).name = "Acme (other)"
            try otherContext.save()
        }
        let error = try await failingSave(stack, seed, objects: [seed.beta], sameAncestors: true)
        guard case .mergeConflict(let conflicts) = error else { Issue.record("\(error)"); return }
        let property = try #require(conflicts.first?.properties.first)
        #expect(conflicts.map(\.objectID) == [seed.acme])
        #expect(property.property == "name")
        #expect(property.base == .string("Acme"))
        #expect(property.ours == .string("Acme (child)"))
        #expect(property.theirs == .string("Acme (other)"))     // what the file holds

        // No stale base survives in the ancestors: their copies of Acme are the file's.
        for context in [stack.writer, stack.main] {
            let acme = try #require(await context.perform { context.inspectRegisteredObjects([seed.acme])[seed.acme] })
            #expect(acme.state == .unchanged)
            #expect(acme.rowVersion == 2)
            #expect(acme.properties.first { $0.name == "name" }?.committedValue == .string("Acme (other)"))
        }
        // A plain retry meets the same conflict (the child still holds what it read)...
        await #expect(throws: SaveError.self) { try await stack.child.saveToStore() }
        // ...and resolving it keeps ours.
        await stack.child.perform { stack.child.mergePolicy = .mergeByPropertyObjectTrump }
        try await retrySucceeds(stack, seed)
    }

    @Test func aBusyFileLeavesTheAncestorsAndTheSameSaveWorksOnceItIsFree() async throws {
        let url = TestStack.fileURL()
        var description = PersistentStoreDescription.sqlite(at: url)
        description.busyTimeout = 0.3
        let stack = try DeepStack(description: description, url: url)
        let seed = try await stack.seed()
        _ = try await stack.childEdits(seed)
        let holder = try await FixtureProcess.start(["hold-write-lock", url.path, FixtureProcess.holdLimit], readyLine: "locked")
        let error = try await failingSave(stack, seed, objects: [seed.acme, seed.beta])
        await holder.finish()
        guard case .storeFailure(.busy(let path, let timeout)) = error else { Issue.record("\(error)"); return }
        #expect(path == url.path && timeout == 0.3)
        try await retrySucceeds(stack, seed)
    }

    @Test func aConstraintOnlyTheStoreKnowsLeavesTheAncestors() async throws {
        let stack = try DeepStack()
        let seed = try await stack.seed()
        _ = try await stack.childEdits(seed)
        await stack.child.perform {
            let client = stack.child.insertedObjects.compactMap { $0 as? Client }.first { $0.name == "New from child" }
            client?.city = "Paris"      // Acme's city: the model allows it, the file's extra index does not
        }
        try Self.execute("CREATE UNIQUE INDEX one_client_per_city ON Client(city)", at: stack.url)
        let error = try await failingSave(stack, seed, objects: [seed.acme, seed.beta])
        guard case .storeFailure(let storeError) = error else { Issue.record("\(error)"); return }
        #expect(storeError.resultCode == SQLiteResultCode.constraintUnique)
        try Self.execute("DROP INDEX one_client_per_city", at: stack.url)
        try await retrySucceeds(stack, seed)
    }

    @Test func anIOErrorLeavesTheAncestors() async throws {
        #expect(og_failing_vfs_register() == SQLITE_OK)
        let url = TestStack.fileURL()
        var description = PersistentStoreDescription.sqlite(at: url)
        description.vfsName = String(cString: og_failing_vfs_name)
        let stack = try DeepStack(description: description, url: url)
        let seed = try await stack.seed()
        _ = try await stack.childEdits(seed)
        let refusedBefore = og_failing_vfs_refused_writes()
        og_failing_vfs_set_failing(1)
        let error: SaveError
        do {
            defer { og_failing_vfs_set_failing(0) }
            error = try await failingSave(stack, seed, objects: [seed.acme, seed.beta])
        }
        #expect(og_failing_vfs_refused_writes() > refusedBefore)
        guard case .storeFailure(let storeError) = error, let code = storeError.resultCode else {
            Issue.record("\(error)")
            return
        }
        #expect(SQLiteResultCode.primary(code) == SQLiteResultCode.ioError)
        try await retrySucceeds(stack, seed)
    }

    @Test func aConflictInAnAncestorLeavesEveryContextAsItWas() async throws {
        let stack = try DeepStack()
        let seed = try await stack.seed()
        _ = try await stack.childEdits(seed)
        // Main renames Acme after the child read it: the conflict is found in main.
        try await stack.main.perform { try stack.main.existingObject(with: seed.acme, as: Client.self).name = "Acme (main)" }
        let error = try await failingSave(stack, seed, objects: [seed.acme, seed.beta])
        guard case .mergeConflict(let conflicts) = error else { Issue.record("\(error)"); return }
        #expect(conflicts.first?.properties.first?.theirs == .string("Acme (main)"))
    }

    @Test func aValidationFailureLeavesEveryContextAsItWas() async throws {
        let stack = try DeepStack()
        let seed = try await stack.seed()
        _ = try await stack.childEdits(seed, name: "Forbidden")      // refused by Client.validate()
        let error = try await failingSave(stack, seed, objects: [seed.acme, seed.beta])
        guard case .validationFailed(let failures) = error else { Issue.record("\(error)"); return }
        #expect(failures.map(\.property) == ["name"])
    }

    /// Runs SQL on the file through a connection of its own, as another program would.
    private static func execute(_ sql: String, at url: URL) throws {
        var db: OpaquePointer?
        guard sqlite3_open_v2(url.path, &db, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK, let db else {
            throw StoreError.cannotOpen(path: url.path, reason: "test connection")
        }
        defer { sqlite3_close_v2(db) }
        sqlite3_busy_timeout(db, 5000)
        guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else {
            throw StoreError.sqlite(code: sqlite3_errcode(db), message: String(cString: sqlite3_errmsg(db)), sql: sql)
        }
    }
}
