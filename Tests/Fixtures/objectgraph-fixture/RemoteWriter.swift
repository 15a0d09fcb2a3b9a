import Foundation
import ObjectGraph
import ObjectGraphFixtureModel

/// The other process of the multi-process tests: a stack of its own on the shared store,
/// driven line by line on stdin, answering one line per command on stdout.
///
///     insert NAME [EMAIL]   → inserted <pk> <URI of the object ID>
///     edit NAME BALANCE     → edited            (changed in the context, not saved)
///     save                  → saved | conflict <message> | error <message>
///     update NAME BALANCE   → edit + save
///     delete NAME           → deleted | error <message>
///     seq N                 → committed N <CLOCK_MONOTONIC ns after the commit>
///     quit                  → (exits)
enum RemoteWriter {
    static func run(path: String) -> Never {
        let coordinator = openStore(at: path)
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator, name: "remote-writer")
        context.transactionAuthor = "fixture"
        say("ready")
        while let line = readLine() {
            let words = line.split(separator: " ").map(String.init)
            guard let command = words.first else { continue }
            if command == "quit" { exit(0) }
            let reply = context.performAndWait { handle(command, Array(words.dropFirst()), in: context) }
            say(reply)
        }
        exit(0)
    }

    private static func handle(_ command: String, _ args: [String], in context: ManagedObjectContext) -> String {
        do {
            switch (command, args.count) {
            case ("insert", 1...2):
                let account = Account(context: context)
                account.name = args[0]
                account.email = args.count > 1 ? args[1] : nil
                try context.save()
                return "inserted \(account.objectID.primaryKey ?? 0) \(account.objectID.uriRepresentation().absoluteString)"
            case ("edit", 2):
                guard let account = try find(args[0], in: context), let balance = Int(args[1]) else { return "error no such account" }
                account.balance = balance
                return "edited"
            case ("save", 0):
                return try saveReporting(context)
            case ("update", 2):
                guard let account = try find(args[0], in: context), let balance = Int(args[1]) else { return "error no such account" }
                account.balance = balance
                return try saveReporting(context)
            case ("delete", 1):
                guard let account = try find(args[0], in: context) else { return "error no such account" }
                context.delete(account)
                try context.save()
                return "deleted"
            case ("seq", 1):
                guard let n = Int64(args[0]) else { return "error bad number" }
                let account = try find("bench", in: context) ?? {
                    let a = Account(context: context)
                    a.name = "bench"
                    return a
                }()
                account.sequence = n
                try context.save()
                var now = timespec()
                clock_gettime(CLOCK_MONOTONIC, &now)
                return "committed \(n) \(Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec))"
            default:
                return "error unknown command \(command)"
            }
        } catch {
            context.rollback()
            return "error \(error)"
        }
    }

    private static func saveReporting(_ context: ManagedObjectContext) throws -> String {
        do {
            try context.save()
            return "saved"
        } catch let error as SaveError {
            context.rollback()
            if case .mergeConflict = error { return "conflict \(error)" }
            return "error \(error)"
        }
    }

    private static func find(_ name: String, in context: ManagedObjectContext) throws -> Account? {
        try context.fetch(FetchRequest<Account>(predicate: #Predicate { $0.name == name }, fetchLimit: 1)).first
    }

    /// The shared store, with history and remote changes on; exits with the error if it cannot.
    static func openStore(at path: String) -> PersistentStoreCoordinator {
        let coordinator = PersistentStoreCoordinator(model: SharedModel.model)
        do {
            try coordinator.addPersistentStore(SharedModel.description(at: path))
        } catch {
            print("error \(error)")
            exit(1)
        }
        return coordinator
    }

    static func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}

/// Dies in the middle of a write: a batch insert whose row source announces that the
/// transaction is open and then waits to be killed (SIGKILL) by the test.
enum DyingWriter {
    static func run(path: String) -> Never {
        let coordinator = RemoteWriter.openStore(at: path)
        var made = 0
        let request = BatchInsertRequest<Account> {
            made += 1
            if made == 500 {
                RemoteWriter.say("in-transaction")
                while true { sleep(60) }
            }
            var row = PropertyValues<Account>()
            row.set(\.name, to: "doomed-\(made)")
            return row
        }
        _ = try? coordinator.execute(request, author: "dying")
        exit(0)
    }
}
