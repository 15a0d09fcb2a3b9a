import Foundation

/// The run-time check that managed objects are only used on their context's queue.
///
/// Core Data checks this only with `-com.apple.CoreData.ConcurrencyDebug 1`. Here it is on in
/// debug builds, and in release builds when the environment has
/// `OBJECTGRAPH_CONCURRENCY_DEBUG=1`. Most violations do not compile in the first place,
/// because managed objects are not `Sendable`; this catches the rest (objects smuggled through
/// `nonisolated(unsafe)` or `@unchecked Sendable` wrappers).
public enum ConcurrencyDebug {
    /// Whether wrong-queue access traps.
    public static let isEnabled: Bool = {
        if let value = ProcessInfo.processInfo.environment["OBJECTGRAPH_CONCURRENCY_DEBUG"] {
            return value == "1" || value.lowercased() == "yes" || value.lowercased() == "true"
        }
        #if DEBUG
        return true
        #else
        return false
        #endif
    }()

    static func check(_ object: ManagedObject) {
        guard let context = object.managedObjectContext, !context.isOnQueue else { return }
        violation(context: context, detail: "\(object.entity.name) \(object.objectID)")
    }

    static func check(_ context: ManagedObjectContext, _ operation: StaticString) {
        guard !context.isOnQueue else { return }
        violation(context: context, detail: "\(operation)")
    }

    static func violation(context: ManagedObjectContext, detail: String) -> Never {
        let thread = ManagedObjectContext.isOnMainQueue ? "the main queue" : "a thread that is not running its queue"
        let message = """
            ObjectGraph concurrency violation: \(detail) of context \(context.debugName) \
            (\(context.concurrencyType == .mainQueue ? "main queue" : "private queue")) \
            was used on \(thread). Use it inside context.perform { }, \
            context.performAndWait { } or await context.perform { }, and pass object IDs \
            between queues instead of objects.
            """
        FileHandle.standardError.write(Data((message + "\n").utf8))
        fatalError(message)
    }
}
