import Foundation
import ObjectGraph

/// Opens a store and saves to it, reporting on stdout which step failed and how:
/// `opened`, `saved`, or `error at open|save: <case>: <message>`.
enum StoreCommands {
    static func saveClient(path: String, name: String) -> Never {
        let coordinator = PersistentStoreCoordinator(model: FixtureModel.make())
        do {
            try coordinator.addPersistentStore(.sqlite(at: URL(fileURLWithPath: path)))
        } catch {
            report(error, at: "open")
        }
        print("opened")
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator, name: "fixture")
        do {
            try context.performAndWait {
                let client = Client(context: context)
                client.name = name
                try context.save()
            }
        } catch {
            report(error, at: "save")
        }
        print("saved")
        exit(0)
    }

    private static func report(_ error: any Error, at step: String) -> Never {
        print("error at \(step): \(caseName(of: error)): \(error)")
        exit(1)
    }

    /// The error's case, e.g. `StoreError.cannotOpen`, so tests can match the kind exactly.
    private static func caseName(of error: any Error) -> String {
        let reflected = String(describing: Mirror(reflecting: error).children.first?.label ?? "\(error)")
        return "\(type(of: error)).\(reflected)"
    }
}

/// Running as root, file permissions do not apply; dropping to `nobody` lets a test see what
/// an ordinary user gets on a read-only file or folder.
enum Privileges {
    static func dropToNobody() {
        guard getuid() == 0 else { return }
        let nobody: UInt32 = 65534
        guard setgroups(0, nil) == 0, setgid(nobody) == 0, setuid(nobody) == 0 else {
            FileHandle.standardError.write(Data("cannot drop privileges: errno \(errno)\n".utf8))
            exit(1)
        }
    }
}
