import Foundation
import ObjectGraph

/// A managed object smuggled out of its context's queue. `nonisolated(unsafe)` is exactly the
/// kind of escape hatch that gets past the compiler's Sendable checking; the run-time check
/// must catch what it lets through.
nonisolated(unsafe) private var smuggled: Client?

/// Programs that use a managed object on the right queue or on a wrong one.
enum ConcurrencyPrograms {
    /// Inserts a client inside `perform`, smuggles it out and reads its name on the main
    /// thread. With the check on, the read traps; stdout then never shows "read".
    static func violate() async {
        let context = makeContext()
        await context.perform {
            let client = Client(context: context)
            client.name = "Smuggled"
            smuggled = client
        }
        print("reading outside perform")
        fflush(nil)  // all streams: `stdout` itself is not concurrency-safe to name
        let name = smuggled?.name ?? "nil"
        print("read \(name)")
    }

    /// The same program, done right: the object stays inside `perform`, its name comes out.
    static func respect() async {
        let context = makeContext()
        let name = await context.perform {
            let client = Client(context: context)
            client.name = "Smuggled"
            return client.name
        }
        print("read \(name)")
    }

    static func printCheckState() {
        print(ConcurrencyDebug.isEnabled ? "enabled" : "disabled")
    }

    private static func makeContext() -> ManagedObjectContext {
        let coordinator = PersistentStoreCoordinator(model: FixtureModel.make())
        do {
            try coordinator.addPersistentStore(.inMemory())
        } catch {
            fatalError("in-memory store: \(error)")
        }
        return ManagedObjectContext(.privateQueue, coordinator: coordinator, name: "fixture-writer")
    }
}
