import Foundation

/// How far up a change has gone: the stages of the chain in ARCHITECTURE.md, scratchpad → main →
/// writer → disk (an import context writes to the file directly).
enum ChangeStage: String, Sendable, Codable, Comparable {
    case scratchpad, main, writer, disk
    case importContext = "import"
    /// Saved and acknowledged, but set aside by the writer: the file refused it (a conflict or
    /// a taken value), everything else was written.
    case setAside = "not on disk: conflict"

    /// Further up the chain is greater; an import context is before the chain.
    var order: Int {
        switch self {
        case .importContext: 0
        case .scratchpad: 1
        case .main: 2
        case .writer, .setAside: 3
        case .disk: 4
        }
    }

    /// The words the inspector shows.
    var label: String {
        switch self {
        case .scratchpad: "only in the scratchpad"
        case .main: "saved into main"
        case .writer: "in the writer, not on disk yet"
        case .disk: "on disk"
        case .importContext: "in an import context, not saved yet"
        case .setAside: "not on disk: conflict (set aside by the writer, waiting to be resolved)"
        }
    }

    static func < (lhs: ChangeStage, rhs: ChangeStage) -> Bool { lhs.order < rhs.order }
}

/// The live tree at one moment: what `/contexts`, `/contexts.md` and `/contexts.json` show.
/// Read from each context on its own queue, then rendered anywhere.
struct StackSnapshot: Sendable, Codable {
    let takenAt: Date
    /// `immediate`, or `deferred=SECONDS`: when the writer's changes reach the file.
    let persist: String
    let coordinator: CoordinatorSnapshot
    /// Writer, main, then scratchpads and imports, each naming its parent.
    let contexts: [ContextSnapshot]
    /// Scratchpads (with their children) open but not listed: all but the most recent
    /// ``StackSnapshotter/scratchpadLimit``.
    let unlistedScratchpads: Int
    /// Every pending change of every context with how far up it has gone, then the objects
    /// written to the file most recently.
    let journey: [JourneyStep]
    /// Newest first.
    let timeline: [InspectorEvent]
    let otherProcesses: OtherProcessesSnapshot
    /// Open forms: the scratchpads this process holds, and the forms the database holds for
    /// every server.
    let openForms: OpenFormsSnapshot
    /// Acknowledged changes that are not on disk: set aside by the writer, and why the
    /// writer's last flush failed if it did.
    let notOnDisk: NotOnDiskSnapshot
}

/// What was acknowledged but is not in the file.
struct NotOnDiskSnapshot: Sendable, Codable {
    let setAside: [SetAsideSnapshot]
    /// The writer's last flush failed (busy, I/O): its changes wait for the next flush.
    let writerFailure: String?
}

/// A change the writer set aside, as the inspector shows it.
struct SetAsideSnapshot: Sendable, Codable {
    let object: String
    let kind: String
    let reason: String
    let setAsideAt: Date
    /// `/set-aside/{id}`: resolve or discard it.
    let link: String
    let properties: [SetAsideProperty]

    struct SetAsideProperty: Sendable, Codable {
        let name: String
        let base: String
        let theirs: String?
        let yours: String
    }

    init(_ change: SetAsideChange) {
        object = change.objectID.description
        kind = change.kind.rawValue
        switch change.reason {
        case .conflict(let conflict): reason = conflict.deletedElsewhere ? "deleted in the file" : "conflict with the file"
        case .duplicate(let violation): reason = violation.description
        }
        setAsideAt = change.setAsideAt
        link = "/set-aside/\(change.id)"
        properties = change.properties.filter { !$0.yours.isReferenceList }.map {
            SetAsideProperty(name: $0.name, base: StackSnapshotter.text($0.base), theirs: $0.theirs.map(StackSnapshotter.text),
                             yours: StackSnapshotter.text($0.yours))
        }
    }
}

/// The coordinator at the root of the stack.
struct CoordinatorSnapshot: Sendable, Codable {
    let storeFile: String
    let storeUUID: String
    let rowCacheEntries: Int
    /// The store's latest persistent history transaction; nil for stores without history,
    /// shown as "—".
    let historyToken: String?
}

/// One context of the tree.
struct ContextSnapshot: Sendable, Codable {
    /// The inspector's name for it (`writer`, `main`, `scratchpad-3`, `import-1`).
    let id: String
    let role: ContextRole
    /// Its ObjectGraph name (`form: client 12`).
    let name: String
    /// `private queue` or `main queue`.
    let queue: String
    /// The parent's ``id``, or `coordinator` for a root context.
    let parent: String
    let registeredObjects: Int
    let mergesParentSaves: Bool
    let mergePolicy: String
    let inserted: Int
    let updated: Int
    let deleted: Int
    /// At most ``StackSnapshotter/pendingChangeLimit`` of them; ``unlisted`` says how many more.
    let changes: [PendingChangeSnapshot]
    let unlisted: Int
    /// The form (and session) that owns a scratchpad.
    let owner: FormOwnerSnapshot?
    /// When the context was made, when known (forms and imports).
    let createdAt: Date?
    /// For scratchpads: whether their save would go through now.
    let saveCheck: SaveReadiness?
    /// The context did not answer within the inspector's deadline (busy with a long block);
    /// its figures are missing.
    let busy: Bool

    var pendingCount: Int { inserted + updated + deleted }
}

/// An inserted, updated or deleted object of a context.
struct PendingChangeSnapshot: Sendable, Codable {
    /// `Client/p12`, or `Client/t1a2b3c4d` for a temporary ID.
    let object: String
    let entity: String
    /// The key in URLs: the primary key, or `t` and the temporary ID's UUID.
    let key: String
    /// `inserted`, `updated` or `deleted`.
    let kind: String
    let temporaryID: Bool
    let deletedElsewhere: Bool
    let stage: ChangeStage
    /// The per-object page: the object in each context of the chain.
    let path: String
    /// Changed properties (every set property of an inserted object); none for a delete.
    let properties: [PropertyChangeSnapshot]
}

/// A changed property: the pending value beside the parent's.
struct PropertyChangeSnapshot: Sendable, Codable {
    let name: String
    let pending: String
    /// The value the context started from (the parent's when it was read).
    let committed: String
    /// The parent's value now, when known: differs from `committed` when the parent changed
    /// it meanwhile.
    let parent: String?
    var parentChangedMeanwhile: Bool { parent.map { $0 != committed } ?? false }
}

/// Whether a scratchpad would save now, and if not why.
struct SaveReadiness: Sendable, Codable {
    let wouldSave: Bool
    let validationErrors: [String]
    let conflicts: [String]
}

/// The edit form a scratchpad belongs to.
struct FormOwnerSnapshot: Sendable, Codable {
    /// The form's ID, abbreviated (the whole ID is part of the visitor's URL).
    let form: String
    /// `client` or `invoice`.
    let kind: String
    /// `new client`, or `client 12`.
    let object: String
    /// The session's ID, abbreviated.
    let session: String
    /// Invoice forms opened inside a client form share its scratchpad.
    let nestedForms: Int
    /// When the session expires unless its visitor comes back.
    let expiresAt: Date
}

/// A row of "how far each change has gone".
struct JourneyStep: Sendable, Codable {
    let object: String
    /// The inspector's name of the context holding the change; nil once on disk.
    let context: String?
    let kind: String
    let stage: ChangeStage
    /// For changes on disk: when they were written, and by which context.
    let writtenAt: Date?
    let writtenBy: String?
}

/// What the server knows of other processes writing to the file.
struct OtherProcessesSnapshot: Sendable, Codable {
    /// How remote changes are noticed now.
    let detection: String
    /// The persistent history consumer other processes' changes arrive through: its name,
    /// cursor and how many transactions it merged (nil when none runs).
    let consumer: String?
    let remoteChangesSeen: Int
    let lastRemoteChange: InspectorEvent?
}

/// Open forms here and in the database (``StoredSessions``).
struct OpenFormsSnapshot: Sendable, Codable {
    /// Forms whose scratchpads this process holds (nested forms share their owner's).
    let heldHere: Int
    /// Scratchpads this process holds for them.
    let scratchpadsHere: Int
    /// Open forms' scratchpads the database holds, of every server; nil when it could not
    /// be read, or sessions are kept in memory only.
    let inDatabase: Int?
}
