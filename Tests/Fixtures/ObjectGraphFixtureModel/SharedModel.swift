import Foundation
import ObjectGraph

/// The model both sides of the multi-process tests open: the tests in their own process,
/// and `objectgraph-fixture` as the other process. One definition, so both write the same
/// model hash into the file.
public final class Account: ManagedObject {
    @Attribute(.required) public var name: String
    /// Kept in persistent history when an account is deleted, so the other side knows which;
    /// its values are recorded too (the tombstone's copy is then the recorded old value).
    @Attribute(.preservedInHistoryOnDeletion, .recordsValuesInHistory) public var email: String?
    /// History records old → new, so the other side can tell what another process changed.
    @Attribute(.minimum(0), .recordsValuesInHistory) public var balance: Int = 0
    /// Set by the latency benchmark: which commit made the change.
    @Attribute public var sequence: Int64 = 0
    @Relationship(inverse: \Entry.account, deleteRule: .cascade) public var entries: Set<Entry>
}

public final class Entry: ManagedObject {
    @Attribute public var amount: Int = 0
    @Relationship(isRequired: true) public var account: Account?
}

public enum SharedModel {
    public static let model: ManagedObjectModel = {
        do {
            return try ManagedObjectModel(entities: [Account.self, Entry.self])
        } catch {
            fatalError("shared fixture model: \(error)")
        }
    }()

    /// The store description both sides use: history on, remote changes announced.
    public static func description(at path: String) -> PersistentStoreDescription {
        var description = PersistentStoreDescription.sqlite(at: URL(fileURLWithPath: path), busyTimeout: 5,
                                                            recordsHistory: true, postsRemoteChangeNotifications: true)
        description.remoteChangeCheckInterval = 0.01
        return description
    }
}
