/// The order in which one object's persistent history is read
/// (``PersistentStoreCoordinator/history(of:order:limit:startingAfter:)``).
public enum HistoryOrder: Sendable, Hashable {
    /// The first transaction that touched the object first: its insert, then what followed.
    case oldestFirst
    /// The latest transaction first: what a history page usually shows.
    case newestFirst
}
