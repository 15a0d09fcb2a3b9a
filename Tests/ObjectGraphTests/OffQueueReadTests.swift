import CFailingVFS
import CSQLite
import Foundation
import Testing
@testable import ObjectGraph

/// A private child of a main-queue context reads with its SQL on its own queue: the main
/// queue is held only for brief hops (main's unsaved changes, the values of objects main has
/// registered), never while a read waits for the file. The file is real; a read is held at
/// a point the test knows by the test VFS's read gate, not by timing.
@Suite(.serialized) struct OffQueueReadTests {
    /// A file with one client ("Acme", two invoices), reopened by a coordinator that reads it
    /// through the test VFS; writer (root) and main (main queue) over it.
    struct Stack {
        let directory: String
        let url: URL
        let writer: ManagedObjectContext
        let main: ManagedObjectContext
        let clientID: ObjectID

        init() async throws {
            #expect(og_failing_vfs_register() == SQLITE_OK)
            let url = TestStack.fileURL()
            self.url = url
            directory = url.deletingLastPathComponent().path
            let seeding = ManagedObjectContext(.privateQueue, coordinator: try TestStack.coordinator(at: url))
            clientID = try await seeding.perform {
                let client = Client(context: seeding)
                client.name = "Acme"
                for n in 1...2 {
                    let invoice = Invoice(context: seeding)
                    invoice.identifier = "A-\(n)"
                    invoice.client = client
                }
                try seeding.save()
                return client.objectID
            }
            let coordinator = PersistentStoreCoordinator(model: TestStack.model)
            var description = PersistentStoreDescription.sqlite(at: url)
            description.vfsName = String(cString: og_failing_vfs_name)
            try coordinator.addPersistentStore(description)
            writer = ManagedObjectContext(.privateQueue, coordinator: coordinator, name: "writer")
            main = ManagedObjectContext(.mainQueue, parent: writer, name: "main")
        }

        /// Commits a row through a coordinator of its own, so that every connection of the
        /// stack drops the pages it holds (the file changed) and its next read reaches the
        /// file: otherwise a reader connection that read those pages before (opening the
        /// store) may answer from its page cache, and nothing waits at the gate.
        func changeTheFile() async throws {
            let other = ManagedObjectContext(.privateQueue, coordinator: try TestStack.coordinator(at: url))
            try await other.perform {
                Client(context: other).name = "Elsewhere"
                try other.save()
            }
        }

        /// A reading context for one read, as the dashboard makes them.
        func reader() -> ManagedObjectContext { ManagedObjectContext(.privateQueue, parent: main, name: "read") }
    }

    /// Holds reads of the stack's file, runs `read` in a reading context, and once the read
    /// waits at the gate, asks the main queue whether it can still run a block then. Returns
    /// that answer and the read's result. A watchdog lets the read go after 120 s, so that a
    /// main queue held by the read fails the test instead of hanging it. (120 s, not less: the
    /// main queue is the test process's, shared with every test running beside this one,
    /// and under TSan their blocks can keep it busy for many seconds. A free main queue
    /// answers as soon as it gets to the block, and the hold ends then.)
    private func whileHeld<R: Sendable>(_ stack: Stack, _ read: @escaping @Sendable (ManagedObjectContext) throws -> R)
        async throws -> (mainRanWhileHeld: Bool, result: R) {
        try await stack.changeTheFile()
        og_failing_vfs_hold_reads(stack.directory)
        defer { og_failing_vfs_hold_reads(nil) }
        let reader = stack.reader()
        let reading = Task { try await reader.perform { try read(reader) } }
        let watchdog = Task {
            try await Task.sleep(for: .seconds(120))
            og_failing_vfs_hold_reads(nil)
        }
        defer { watchdog.cancel() }
        let start = ContinuousClock.now
        while og_failing_vfs_held_reads() == 0, ContinuousClock.now - start < .seconds(90) {
            try await Task.sleep(for: .milliseconds(2))
        }
        #expect(og_failing_vfs_held_reads() > 0, "the read never reached the file")
        let ranWhileHeld = await stack.main.perform(schedule: .enqueued) { og_failing_vfs_held_reads() > 0 }
        og_failing_vfs_hold_reads(nil)
        return (ranWhileHeld, try await reading.value)
    }

    @Test func aFaultHeldInItsSQLLeavesTheMainQueueFree() async throws {
        let stack = try await Stack()
        let id = stack.clientID
        let (ranWhileHeld, name) = try await whileHeld(stack) { reader in
            try reader.existingObject(with: id, as: Client.self).name
        }
        #expect(ranWhileHeld)
        #expect(name == "Acme")
    }

    @Test func aFetchAndACountHeldInTheirSQLLeaveTheMainQueueFree() async throws {
        let stack = try await Stack()
        let (ranWhileHeld, result) = try await whileHeld(stack) { reader in
            let request = FetchRequest<Invoice>(sortBy: [SortDescriptor(\Invoice.identifier)])
            return (try reader.count(for: request), try reader.fetch(request).map(\.identifier))
        }
        #expect(ranWhileHeld)
        #expect(result.0 == 2)
        #expect(result.1 == ["A-1", "A-2"])
    }

    @Test func aReadSeesMainsAndTheWritersUnsavedChangesAndLeavesThem() async throws {
        let stack = try await Stack()
        let (main, writer, id) = (stack.main, stack.writer, stack.clientID)
        // The writer renames the client; main adds an invoice to it and edits one: all unsaved.
        try await writer.perform { try writer.existingObject(with: id, as: Client.self).name = "Acme Renamed" }
        try await main.perform {
            let client = try main.existingObject(with: id, as: Client.self)
            let invoice = Invoice(context: main)
            invoice.identifier = "A-3"
            invoice.client = client
            client.invoices.first { $0.identifier == "A-1" }?.notes = "edited in main"
        }
        let reader = stack.reader()
        let seen = try await reader.perform {
            let client = try reader.existingObject(with: id, as: Client.self)
            let notes = client.invoices.compactMap(\.notes)
            let fetched = try reader.fetch(FetchRequest<Invoice>(sortBy: [SortDescriptor(\Invoice.identifier)]))
            return (client.name, client.invoices.map(\.identifier).sorted(), notes, fetched.map(\.identifier))
        }
        #expect(seen.0 == "Acme Renamed")
        #expect(seen.1 == ["A-1", "A-2", "A-3"])
        #expect(seen.2 == ["edited in main"])
        #expect(seen.3 == ["A-1", "A-2", "A-3"])
        let mainStill = try await main.perform {
            (main.hasChanges, try main.existingObject(with: id, as: Client.self).invoices.compactMap(\.notes))
        }
        #expect(mainStill.0)
        #expect(mainStill.1 == ["edited in main"])
    }
}
