import CSQLite
import Foundation
import Testing
@testable import ObjectGraph

/// Files a store cannot use: each is a typed `StoreError` from `addPersistentStore` that says
/// what to do, never a crash, and the file is left exactly as it was (bytes and timestamps).
@Suite struct StoreFileTests {
    @Test func aTextFileIsReportedAsNotADatabaseAndLeftUntouched() throws {
        // Given a text file where the store should be
        let url = TestStack.fileURL()
        defer { StoreFileState.cleanUp(url) }
        try Data(String(repeating: "Invoice 2024-001, Acme, 120.00 EUR\n", count: 20).utf8).write(to: url)
        let before = try StoreFileState(of: url)

        // When a coordinator opens it
        let coordinator = PersistentStoreCoordinator(model: TestStack.model)
        let error = #expect(throws: StoreError.self) { try coordinator.addPersistentStore(.sqlite(at: url)) }

        // Then it is refused as not a database, with advice, and nothing changed on disk
        #expect(error == .notADatabase(path: url.path))
        #expect(error?.description.contains("is not an SQLite database") == true)
        #expect(error?.description.contains("Point the store at another file") == true)
        #expect(try StoreFileState(of: url) == before)
        #expect(coordinator.storeIdentifier == nil)
    }

    @Test func aSQLiteFileMadeByAnotherProgramIsRefusedAndLeftUntouched() throws {
        // Given an SQLite database with tables that ObjectGraph did not make
        let url = TestStack.fileURL()
        defer { StoreFileState.cleanUp(url) }
        try RawSQLite.execute("CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO customers (name) VALUES ('Acme');", at: url)
        let before = try StoreFileState(of: url)

        // When a coordinator opens it
        let coordinator = PersistentStoreCoordinator(model: TestStack.model)
        let error = #expect(throws: StoreError.self) { try coordinator.addPersistentStore(.sqlite(at: url)) }

        // Then it is refused, saying whose file it is, and the file is as it was
        guard case .incompatibleModel(let path, let differences)? = error else {
            Issue.record("expected incompatibleModel, got \(String(describing: error))")
            return
        }
        #expect(path == url.path)
        #expect(differences.contains { $0.contains("not made by ObjectGraph") })
        #expect(try StoreFileState(of: url) == before)
    }

    @Test func aFolderThatCannotBeWrittenIsReportedAsCannotOpen() throws {
        // Given a store path in a folder this process cannot write to. A folder made
        // read-only with chmod 0555 does that for an ordinary user; root (which the tests
        // may run as, e.g. in CI containers) writes through any permission bits, so when a
        // probe shows that chmod does not stop us, use /proc instead: no one can create a
        // file there, root included.
        let folder = TestStack.temporaryDirectory()
        defer { StoreFileState.removeFolder(folder) }
        try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: folder.path)
        let url: URL
        if FileManager.default.createFile(atPath: folder.appendingPathComponent("probe").path, contents: nil) {
            url = URL(fileURLWithPath: "/proc/og-tests-\(UUID().uuidString).sqlite")
        } else {
            url = folder.appendingPathComponent("store.sqlite")
        }

        // When a coordinator opens a store there
        let coordinator = PersistentStoreCoordinator(model: TestStack.model)
        let error = #expect(throws: StoreError.self) { try coordinator.addPersistentStore(.sqlite(at: url)) }

        // Then it cannot be opened, the message says what to check, and no file appeared
        guard case .cannotOpen(let path, _)? = error else {
            Issue.record("expected cannotOpen, got \(String(describing: error))")
            return
        }
        #expect(path == url.path)
        #expect(error?.description.contains("writable") == true)
        #expect(!FileManager.default.fileExists(atPath: url.path))
    }

    @Test func aPathInsideARegularFileIsReportedAsCannotOpen() throws {
        // Given a store path whose parent "folder" is a regular file
        let folder = TestStack.temporaryDirectory()
        defer { StoreFileState.removeFolder(folder) }
        let notAFolder = folder.appendingPathComponent("notes.txt")
        try Data("notes".utf8).write(to: notAFolder)
        let url = notAFolder.appendingPathComponent("store.sqlite")
        let before = try StoreFileState(of: notAFolder)

        // When a coordinator opens a store there
        let coordinator = PersistentStoreCoordinator(model: TestStack.model)
        let error = #expect(throws: StoreError.self) { try coordinator.addPersistentStore(.sqlite(at: url)) }

        // Then it cannot be opened, and the file in the way is untouched
        guard case .cannotOpen(let path, _)? = error else {
            Issue.record("expected cannotOpen, got \(String(describing: error))")
            return
        }
        #expect(path == url.path)
        #expect(try StoreFileState(of: notAFolder) == before)
    }

    @Test func aStoreThisProcessCannotWriteIsRefusedAtOpenNotAtTheFirstSave() async throws {
        // Given a store with a client, then made read-only (file 0444 in a folder 0555).
        // SQLite quietly falls back to read-only when it cannot open a file for writing, so
        // without a check the store would open and only the first save would fail. The
        // fixture opens it as `nobody` when we are root (root ignores permission bits).
        let folder = TestStack.temporaryDirectory()
        defer { StoreFileState.removeFolder(folder) }
        let url = folder.appendingPathComponent("store.sqlite")
        let created = try await FixtureProcess.run(["save-client", url.path, "First"])
        try #require(created.exitedSuccessfully, "fixture: \(created.stdout) \(created.stderr)")
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: url.path)
        try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: folder.path)
        let before = try StoreFileState(of: url)

        // When another process opens it to save a second client
        let attempt = try await FixtureProcess.run(["save-client", url.path, "Second", "--as-nobody"])

        // Then opening fails with cannotOpen, telling what to check, and nothing changed
        #expect(attempt.terminationStatus == 1)
        #expect(attempt.stdout.contains("error at open: StoreError.cannotOpen"), "fixture: \(attempt.stdout)")
        #expect(attempt.stdout.contains("writable"))
        #expect(try StoreFileState(of: url) == before)
    }

    @Test func aDatabaseLockedByAnotherProcessPastTheBusyTimeoutIsReportedAsBusy() async throws {
        // Given a store with a client, and another process holding it locked
        let url = TestStack.fileURL()
        defer { StoreFileState.cleanUp(url) }
        let clientID = try await TwoCoordinatorTests.saveClient(named: "Acme", through: TestStack.coordinator(at: url))
        let holder = try await FixtureProcess.start(["hold-lock", url.path, FixtureProcess.holdLimit], readyLine: "locked")
        let before = try StoreFileState(of: url)

        // When a coordinator opens it with a short busy timeout
        let coordinator = PersistentStoreCoordinator(model: TestStack.model)
        let started = Date()
        let error = #expect(throws: StoreError.self) {
            try coordinator.addPersistentStore(.sqlite(at: url, busyTimeout: 0.2))
        }
        let waited = Date().timeIntervalSince(started)
        let after = try StoreFileState(of: url)
        await holder.finish()

        // Then it waited for the timeout, then gave up with a busy error saying what to do;
        // the file is unchanged, and once the lock is gone the same coordinator opens it
        #expect(error == .busy(path: url.path, timeout: 0.2))
        #expect(error?.description.contains("raise the busy timeout") == true)
        #expect(waited >= 0.2)
        #expect(after == before)
        try coordinator.addPersistentStore(.sqlite(at: url, busyTimeout: 0.2))
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        let name = try await context.perform { try context.existingObject(with: clientID, as: Client.self).name }
        #expect(name == "Acme")
    }

    @Test func aStoreThatFailsToOpenLeavesTheCoordinatorUsableForAnotherStore() async throws {
        // Given a coordinator whose first store could not be opened
        let bad = TestStack.fileURL()
        defer { StoreFileState.cleanUp(bad) }
        try Data("not a database".utf8).write(to: bad)
        let coordinator = PersistentStoreCoordinator(model: TestStack.model)
        #expect(throws: StoreError.notADatabase(path: bad.path)) { try coordinator.addPersistentStore(.sqlite(at: bad)) }

        // When it adds a good store and saves through it
        let good = TestStack.fileURL()
        defer { StoreFileState.cleanUp(good) }
        try coordinator.addPersistentStore(.sqlite(at: good))
        let clientID = try await TwoCoordinatorTests.saveClient(named: "Acme", through: coordinator)

        // Then that store is the coordinator's, and holds the client
        #expect(coordinator.storePath == good.path)
        #expect(clientID.storeIdentifier == coordinator.storeIdentifier)
        let reopened = try TestStack.coordinator(at: good)
        let context = ManagedObjectContext(.privateQueue, coordinator: reopened)
        #expect(try await context.perform { try context.count(for: FetchRequest<Client>()) } == 1)
    }
}

/// Two coordinators on one SQLite file (SEMANTICS.md §8, §10): they share the rows on disk,
/// nothing in memory, and optimistic locking catches what one wrote under the other.
@Suite struct TwoCoordinatorTests {
    struct Pair {
        let url: URL
        let one: PersistentStoreCoordinator
        let two: PersistentStoreCoordinator
    }

    static func pair() throws -> Pair {
        let url = TestStack.fileURL()
        let one = try TestStack.coordinator(at: url)
        let two = try TestStack.coordinator(at: url)
        return Pair(url: url, one: one, two: two)
    }

    /// Saves a new client and returns its (permanent) ID.
    static func saveClient(named name: String, city: String? = nil,
                           through coordinator: PersistentStoreCoordinator) async throws -> ObjectID {
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        return try await context.perform {
            let client = Client(context: context)
            client.name = name
            client.city = city
            try context.save()
            return client.objectID
        }
    }

    /// The client as the store holds it, read through a new coordinator (an empty row cache).
    static func storedClient(_ id: ObjectID, at url: URL) async throws -> (name: String, city: String?, isActive: Bool) {
        let context = ManagedObjectContext(.privateQueue, coordinator: try TestStack.coordinator(at: url))
        return try await context.perform {
            let client = try context.existingObject(with: id, as: Client.self)
            return (client.name, client.city, client.isActive)
        }
    }

    @Test func aRowSavedThroughOneCoordinatorIsFetchedByTheOther() async throws {
        // Given two coordinators on one file
        let pair = try Self.pair()
        defer { StoreFileState.cleanUp(pair.url) }

        // When one saves a client
        let id = try await Self.saveClient(named: "Acme", city: "Lyon", through: pair.one)

        // Then the other fetches it, under the same ID
        let context = ManagedObjectContext(.privateQueue, coordinator: pair.two)
        let fetched = try await context.perform {
            try context.fetch(FetchRequest<Client>()).map { ($0.objectID, $0.name, $0.city) }
        }
        #expect(fetched.count == 1)
        #expect(fetched.first?.0 == id)
        #expect(fetched.first?.1 == "Acme")
        #expect(fetched.first?.2 == "Lyon")
        #expect(pair.one.storeIdentifier == pair.two.storeIdentifier)
    }

    @Test func eachCoordinatorKeepsItsOwnRowCache() async throws {
        // Given two coordinators on one file, one of which saved a client
        let pair = try Self.pair()
        defer { StoreFileState.cleanUp(pair.url) }
        _ = try await Self.saveClient(named: "Acme", through: pair.one)
        let oneBefore = pair.one.rowCacheCount
        #expect(pair.two.rowCacheCount == 0)

        // When a context of the second fetches the client and keeps it
        let context = ManagedObjectContext(.privateQueue, coordinator: pair.two)
        let holder = ObjectHolder()
        try await context.perform {
            holder.objects = try context.fetch(FetchRequest<Client>())
        }

        // Then the row is cached by the second coordinator only
        #expect(pair.two.rowCacheCount == 1)
        #expect(pair.one.rowCacheCount == oneBefore)
        await context.perform { holder.objects = [] }
    }

    @Test func aPermanentIDsURIResolvesInTheOtherCoordinator() async throws {
        // Given a client saved through one coordinator
        let pair = try Self.pair()
        defer { StoreFileState.cleanUp(pair.url) }
        let id = try await Self.saveClient(named: "Acme", through: pair.one)

        // When its URI is resolved by the other coordinator
        let resolved = try pair.two.managedObjectID(forURIRepresentation: id.uriRepresentation())

        // Then it names the same row, which a context of that coordinator loads
        #expect(resolved == id)
        let context = ManagedObjectContext(.privateQueue, coordinator: pair.two)
        let name = try await context.perform { try context.existingObject(with: try #require(resolved), as: Client.self).name }
        #expect(name == "Acme")
    }

    @Test func aTemporaryIDsURIIsRejected() async throws {
        // Given an unsaved client's temporary ID
        let pair = try Self.pair()
        defer { StoreFileState.cleanUp(pair.url) }
        let context = ManagedObjectContext(.privateQueue, coordinator: pair.one)
        let uri = await context.perform {
            let client = Client(context: context)
            client.name = "Unsaved"
            return client.objectID.uriRepresentation()
        }

        // When either coordinator resolves its URI
        // Then that throws temporaryID: it means nothing outside its context
        #expect(throws: ObjectIDURIError.temporaryID(uri.absoluteString)) {
            try pair.two.managedObjectID(forURIRepresentation: uri)
        }
        #expect(throws: ObjectIDURIError.temporaryID(uri.absoluteString)) {
            try pair.one.managedObjectID(forURIRepresentation: uri)
        }
    }

    @Test func aURIOfAnotherStoreResolvesToNil() async throws {
        // Given a client saved in another store file
        let pair = try Self.pair()
        defer { StoreFileState.cleanUp(pair.url) }
        let elsewhereURL = TestStack.fileURL()
        defer { StoreFileState.cleanUp(elsewhereURL) }
        let elsewhere = try TestStack.coordinator(at: elsewhereURL)
        let id = try await Self.saveClient(named: "Elsewhere", through: elsewhere)

        // When a coordinator of our file resolves its URI
        let resolved = try pair.two.managedObjectID(forURIRepresentation: id.uriRepresentation())

        // Then nothing: the URI names a store this coordinator does not have
        #expect(resolved == nil)
    }

    @Test(arguments: [
        "https://example.com/Client/p1",
        "x-objectgraph://not-a-uuid/Client/p1",
        "x-objectgraph://8C4F8F25-2D0D-4E1B-9C55-2A1F5A3C7E10/Client/q1",
        "x-objectgraph://8C4F8F25-2D0D-4E1B-9C55-2A1F5A3C7E10/Client",
        "x-objectgraph://8C4F8F25-2D0D-4E1B-9C55-2A1F5A3C7E10/Client/p0",
    ])
    func aURIThatIsNotAnObjectURIIsMalformed(_ text: String) throws {
        // Given a URI that uriRepresentation() could not have made
        let pair = try Self.pair()
        defer { StoreFileState.cleanUp(pair.url) }
        let uri = try #require(URL(string: text))

        // When it is resolved
        // Then that throws malformed, quoting it
        #expect(throws: ObjectIDURIError.malformed(uri.absoluteString)) {
            try pair.one.managedObjectID(forURIRepresentation: uri)
        }
    }

    // MARK: Optimistic locking across coordinators

    /// A client "Acme" in Lyon; context A (coordinator one) has changed it by `changeA`,
    /// unsaved; meanwhile context B (coordinator two) loaded it, changed it by `changeB` and
    /// saved. Returns A (its changes pending) and the client's ID.
    private func givenConcurrentChanges(_ pair: Pair, a changeA: @escaping @Sendable (Client) -> Void,
                                        b changeB: @escaping @Sendable (Client) -> Void,
                                        policy: MergePolicy) async throws -> (ManagedObjectContext, ObjectID) {
        let id = try await Self.saveClient(named: "Acme", city: "Lyon", through: pair.one)
        let a = ManagedObjectContext(.privateQueue, coordinator: pair.one, name: "A")
        let b = ManagedObjectContext(.privateQueue, coordinator: pair.two, name: "B")
        try await a.perform {
            a.mergePolicy = policy
            // The changed object stays registered (pending changes hold it) until A saves.
            changeA(try a.existingObject(with: id, as: Client.self))
        }
        try await b.perform {
            changeB(try b.existingObject(with: id, as: Client.self))
            try b.save()
        }
        return (a, id)
    }

    @Test func aChangeSavedThroughAnotherCoordinatorConflictsWithOursAtSave() async throws {
        // Given A and B (different coordinators) both renamed the client, B saved first
        let pair = try Self.pair()
        defer { StoreFileState.cleanUp(pair.url) }
        let (a, id) = try await givenConcurrentChanges(pair, a: { $0.name = "Acme A" }, b: { $0.name = "Acme B" }, policy: .error)

        // When A saves with the default merge policy
        let error = await #expect(throws: SaveError.self) { try await a.perform { try a.save() } }

        // Then a merge conflict lists the name with base, ours and theirs; B's value stays
        // in the store and A keeps its change
        guard case .mergeConflict(let conflicts)? = error else {
            Issue.record("expected mergeConflict, got \(String(describing: error))")
            return
        }
        #expect(conflicts.count == 1)
        #expect(conflicts.first?.objectID == id)
        #expect(conflicts.first?.deletedElsewhere == false)
        let property = try #require(conflicts.first?.properties.first)
        #expect(conflicts.first?.properties.count == 1)
        #expect(property.property == "name")
        #expect(property.base == .string("Acme"))
        #expect(property.ours == .string("Acme A"))
        #expect(property.theirs == .string("Acme B"))
        #expect(try await Self.storedClient(id, at: pair.url).name == "Acme B")
        #expect(await a.perform { a.hasChanges })
    }

    @Test func objectTrumpSavesOurValueAndKeepsTheirOtherChanges() async throws {
        // Given A renamed the client; B renamed it and deactivated it, and saved
        let pair = try Self.pair()
        defer { StoreFileState.cleanUp(pair.url) }
        let (a, id) = try await givenConcurrentChanges(
            pair, a: { $0.name = "Acme A" }, b: { $0.name = "Acme B"; $0.isActive = false },
            policy: .mergeByPropertyObjectTrump)

        // When A saves
        try await a.perform { try a.save() }

        // Then the store has A's name and B's other change
        let stored = try await Self.storedClient(id, at: pair.url)
        #expect(stored.name == "Acme A")
        #expect(stored.isActive == false)
        #expect(stored.city == "Lyon")
    }

    @Test func storeTrumpKeepsTheirValueAndSavesOurOtherChanges() async throws {
        // Given A renamed the client and moved it to Paris; B renamed it and saved
        let pair = try Self.pair()
        defer { StoreFileState.cleanUp(pair.url) }
        let (a, id) = try await givenConcurrentChanges(
            pair, a: { $0.name = "Acme A"; $0.city = "Paris" }, b: { $0.name = "Acme B" },
            policy: .mergeByPropertyStoreTrump)

        // When A saves
        try await a.perform { try a.save() }

        // Then the store has B's name and A's city
        let stored = try await Self.storedClient(id, at: pair.url)
        #expect(stored.name == "Acme B")
        #expect(stored.city == "Paris")
    }

    @Test func overwriteSavesOurWholeObject() async throws {
        // Given A renamed the client; B renamed it and deactivated it, and saved
        let pair = try Self.pair()
        defer { StoreFileState.cleanUp(pair.url) }
        let (a, id) = try await givenConcurrentChanges(
            pair, a: { $0.name = "Acme A" }, b: { $0.name = "Acme B"; $0.isActive = false },
            policy: .overwrite)

        // When A saves
        try await a.perform { try a.save() }

        // Then the store has A's object as A had it: B's changes are gone
        let stored = try await Self.storedClient(id, at: pair.url)
        #expect(stored.name == "Acme A")
        #expect(stored.isActive == true)
        #expect(stored.city == "Lyon")
    }

    @Test func rollbackDropsOurChangesToTheConflictingObjectButSavesTheOthers() async throws {
        // Given A renamed the client and also added a tag; B renamed the client and saved
        let pair = try Self.pair()
        defer { StoreFileState.cleanUp(pair.url) }
        let (a, id) = try await givenConcurrentChanges(
            pair, a: { $0.name = "Acme A" }, b: { $0.name = "Acme B" }, policy: .rollback)
        await a.perform {
            let tag = Tag(context: a)
            tag.label = "key account"
        }

        // When A saves
        let afterSave = try await a.perform {
            try a.save()
            return (a.hasChanges, try a.existingObject(with: id, as: Client.self).name)
        }

        // Then the client keeps B's name, in the store and in A; the tag was saved
        #expect(try await Self.storedClient(id, at: pair.url).name == "Acme B")
        #expect(afterSave.0 == false)
        #expect(afterSave.1 == "Acme B")
        let check = ManagedObjectContext(.privateQueue, coordinator: pair.two)
        let labels = try await check.perform { try check.fetch(FetchRequest<Tag>()).map(\.label) }
        #expect(labels == ["key account"])
    }
}

/// Keeps fetched objects alive between blocks of their context (they are only touched there).
private final class ObjectHolder: @unchecked Sendable {
    // @unchecked Sendable: `objects` is only read and written inside blocks of the one
    // context the objects belong to.
    var objects: [ManagedObject] = []
}

/// What a store's files look like on disk: the database and its journals, byte for byte,
/// with their modification times. `-shm` (SQLite's shared-memory index, rebuilt by every
/// connection) is not part of the data and not compared.
struct StoreFileState: Equatable, CustomStringConvertible {
    struct File: Equatable {
        let bytes: Data
        let modified: Date
    }

    static let dataSuffixes = ["", "-wal", "-journal"]
    /// By suffix; a missing file has no entry.
    let files: [String: File]

    init(of url: URL) throws {
        var files: [String: File] = [:]
        for suffix in Self.dataSuffixes {
            let path = url.path + suffix
            guard FileManager.default.fileExists(atPath: path) else { continue }
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            files[suffix] = File(bytes: try Data(contentsOf: URL(fileURLWithPath: path)),
                                 modified: attributes[.modificationDate] as? Date ?? .distantPast)
        }
        self.files = files
    }

    var description: String {
        files.keys.sorted().map { "store.sqlite\($0): \(files[$0]!.bytes.count) bytes, modified \(files[$0]!.modified.timeIntervalSince1970)" }
            .joined(separator: "; ")
    }

    /// Removes a store made by `TestStack.fileURL()`: its whole folder.
    static func cleanUp(_ url: URL) {
        let folder = url.deletingLastPathComponent()
        guard folder.lastPathComponent.hasPrefix("og-tests-") else { return }
        removeFolder(folder)
    }

    /// Removes a test folder, making it writable first.
    static func removeFolder(_ folder: URL) {
        try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder.path)
        try? FileManager.default.removeItem(at: folder)
    }
}

/// SQLite without ObjectGraph, to make files ObjectGraph did not write.
enum RawSQLite {
    struct Failure: Error { let message: String }

    static func execute(_ sql: String, at url: URL) throws {
        var db: OpaquePointer?
        guard sqlite3_open(url.path, &db) == SQLITE_OK, let db else { throw Failure(message: "open \(url.path)") }
        defer { sqlite3_close(db) }
        guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else {
            throw Failure(message: String(cString: sqlite3_errmsg(db)))
        }
    }
}
