import Foundation
import ObjectGraph
import Synchronization

/// Reads the live tree into a ``StackSnapshot``: each context on its own queue, all at once,
/// each within a deadline, so a context busy with a long block (an import's batch) shows as
/// busy instead of holding the page up. Nothing is read from managed objects off their queue.
///
/// Its cost is bounded whatever visitors do: the ``scratchpadLimit`` most recent scratchpads
/// are read (the rest counted), whether each would save is checked one at a time (so main's
/// queue never has more than one check ahead of a visitor's save), and readers who ask at
/// once share a snapshot.
struct StackSnapshotter: Sendable {
    let stack: InvoicesStack
    let sessions: SessionStore
    let identities: ContextIdentities
    let timeline: InspectorTimeline
    let persist: PersistMode
    let remoteDetection: String

    /// Pending changes listed per context (the counts are always complete).
    static let pendingChangeLimit = 200
    /// How long a context may take to answer.
    static let deadline: Duration = .milliseconds(800)
    /// Scratchpads read in full (the most recently opened); the others are only counted.
    static let scratchpadLimit = 100
    /// How long the save checks of one snapshot may take together; scratchpads not checked by
    /// then show no verdict.
    static let checkBudget: Duration = .seconds(2)
    /// Full snapshots asked for at once share one.
    let coalescer = FreshCoalescer<StackSnapshot>()

    /// How much to read.
    enum Depth: Sendable {
        /// Everything: pending changes with their values, and whether scratchpads would save.
        case full
        /// Counts only (the docs' live figures).
        case figures
    }

    /// A context to read, with what the stack knows of it.
    private struct Target: Sendable {
        let context: ManagedObjectContext
        let id: String
        let role: ContextRole
        let parent: String
        let owner: FormOwnerSnapshot?
        let createdAt: Date?
    }

    /// What a context answered.
    private struct Reading: Sendable {
        let inspection: ContextInspection
        var saveCheck: SaveCheck?
        /// For main: the writer's current values of main's updated objects.
        var parentObjects: [ObjectID: InspectedObject] = [:]
    }

    func snapshot(_ depth: Depth = .full) async -> StackSnapshot {
        guard depth == .full else { return await take(depth) }
        return await coalescer.value { await self.take(.full) }
    }

    private func take(_ depth: Depth) async -> StackSnapshot {
        let (targets, unlisted) = self.targets()
        let limit = depth == .full ? Self.pendingChangeLimit : 0
        var readings: [String: Reading] = [:]
        await withTaskGroup(of: (String, Reading?).self) { group in
            for target in targets {
                group.addTask {
                    let context = target.context
                    let reading = await withDeadline(Self.deadline) {
                        await context.perform(schedule: .enqueued) {
                            Reading(inspection: context.inspect(pendingChangeLimit: limit), saveCheck: nil)
                        }
                    }
                    return (target.id, reading)
                }
            }
            for await (id, reading) in group { if let reading { readings[id] = reading } }
        }
        if depth == .full { await checkSaves(of: targets, into: &readings) }
        // Main's parent values come from the writer, on the writer's queue (never the other
        // way round: the main queue does not wait for the writer here).
        if depth == .full, let main = readings["main"], main.inspection.updatedCount > 0 {
            let ids = main.inspection.pendingChanges.filter { $0.state == .updated }.map(\.objectID)
            let writer = stack.writer
            if let objects = await withDeadline(Self.deadline, {
                await writer.perform { writer.inspectRegisteredObjects(ids) }
            }) {
                readings["main"]?.parentObjects = objects
            }
        }
        let contexts = targets.map { snapshot(of: $0, reading: readings[$0.id]) }
        let setAside = stack.setAsideChanges.map(SetAsideSnapshot.init)
        return StackSnapshot(
            takenAt: Date(), persist: persist.description,
            coordinator: CoordinatorSnapshot(storeFile: stack.coordinator.storePath ?? "",
                                             storeUUID: stack.coordinator.storeIdentifier?.uuidString ?? "",
                                             rowCacheEntries: stack.coordinator.rowCacheCount,
                                             historyToken: Inspector.historyToken(stack.coordinator)),
            contexts: contexts, unlistedScratchpads: unlisted, journey: journey(contexts, setAside: setAside),
            timeline: timeline.recent(),
            otherProcesses: OtherProcessesSnapshot(detection: remoteDetection,
                                                   consumer: stack.historyConsumer.map {
                                                       "\"\($0.name)\" merging into writer and main, at transaction "
                                                           + "\($0.cursor.transactionNumber), \($0.mergedTransactionCount) transactions merged"
                                                   },
                                                   remoteChangesSeen: timeline.count(.remote),
                                                   lastRemoteChange: timeline.last(.remote)),
            openForms: openForms(),
            notOnDisk: NotOnDiskSnapshot(setAside: setAside, writerFailure: stack.persistence.failure))
    }

    private func openForms() -> OpenFormsSnapshot {
        let open = sessions.openForms()
        return OpenFormsSnapshot(heldHere: open.count, scratchpadsHere: open.filter { $0.form.parentFormID == nil }.count,
                                 inDatabase: sessions.storedFormCount())
    }

    /// Whether each scratchpad with changes would save, one after the other, within
    /// ``checkBudget``. Each check awaits the scratchpad's queue, then its parent's: it never
    /// holds a thread waiting for another queue (see ARCHITECTURE.md, "Threads"), and main's
    /// queue has at most one check ahead of anything else.
    private func checkSaves(of targets: [Target], into readings: inout [String: Reading]) async {
        let deadline = ContinuousClock.now + Self.checkBudget
        for target in targets where target.role == .scratchpad || target.role == .child {
            guard let reading = readings[target.id], reading.inspection.hasChanges else { continue }
            guard ContinuousClock.now < deadline else { return }
            let context = target.context
            readings[target.id]?.saveCheck = await withDeadline(Self.deadline) { await context.checkSave() } ?? nil
        }
    }

    /// Writer, main, the most recent scratchpads (main's children) with their forms and
    /// children, the import contexts; and how many scratchpads (with their children) were left
    /// out.
    private func targets() -> (targets: [Target], unlisted: Int) {
        var targets = [
            Target(context: stack.writer, id: "writer", role: .writer, parent: "coordinator", owner: nil, createdAt: nil),
            Target(context: stack.main, id: "main", role: .main, parent: "writer", owner: nil, createdAt: nil),
        ]
        let forms = Dictionary(grouping: sessions.openForms()) { ObjectIdentifier($0.form.scratchpad) }
        let opened = { (context: ManagedObjectContext) in
            forms[ObjectIdentifier(context)]?.map(\.form.openedAt).min() ?? .distantPast
        }
        let scratchpads = stack.main.childContexts.map { ($0, opened($0)) }.sorted { $0.1 > $1.1 }.map(\.0)
        var queue = Array(scratchpads.prefix(Self.scratchpadLimit))
        var unlisted = 0
        for left in scratchpads.dropFirst(Self.scratchpadLimit) { unlisted += 1 + Self.descendantCount(of: left) }
        while !queue.isEmpty {
            let context = queue.removeFirst()
            let parent = context.parent.map { identities.id(of: $0) } ?? "coordinator"
            let owning = forms[ObjectIdentifier(context)] ?? []
            let main = owning.first { $0.form.parentFormID == nil } ?? owning.first
            let owner = main.map { open in
                FormOwnerSnapshot(form: ContextActivityRecorder.abbreviate(open.form.id), kind: open.form.noun,
                                  object: ContextActivityRecorder.describe(open.form),
                                  session: ContextActivityRecorder.abbreviate(open.sessionID),
                                  nestedForms: owning.count - 1, expiresAt: open.expiresAt)
            }
            targets.append(Target(context: context, id: identities.id(of: context), role: identities.role(of: context),
                                  parent: parent, owner: owner, createdAt: main?.form.openedAt))
            queue.append(contentsOf: context.childContexts)
        }
        for entry in stack.importContexts.live {
            targets.append(Target(context: entry.context, id: identities.id(of: entry.context), role: .import,
                                  parent: "coordinator", owner: nil, createdAt: entry.createdAt))
        }
        return (targets, unlisted)
    }

    private static func descendantCount(of context: ManagedObjectContext) -> Int {
        context.childContexts.reduce(0) { $0 + 1 + descendantCount(of: $1) }
    }

    private func snapshot(of target: Target, reading: Reading?) -> ContextSnapshot {
        guard let reading else {
            return ContextSnapshot(id: target.id, role: target.role, name: target.context.name ?? "", queue: Self.queue(target.context.concurrencyType),
                                   parent: target.parent, registeredObjects: 0, mergesParentSaves: false, mergePolicy: "",
                                   inserted: 0, updated: 0, deleted: 0, changes: [], unlisted: 0, owner: target.owner,
                                   createdAt: target.createdAt, saveCheck: nil, busy: true)
        }
        let inspection = reading.inspection
        let check = reading.saveCheck
        let changes = inspection.pendingChanges.map { object in
            change(object, in: target, parentValues: check?.parentValues[object.objectID] ?? nil,
                   parentObject: reading.parentObjects[object.objectID])
        }
        var readiness: SaveReadiness?
        if target.role == .scratchpad || target.role == .child {
            let errors = (check?.validationFailures ?? []).map(Self.describe)
                + (check?.uniquenessViolation.map { ["\($0)"] } ?? [])
            readiness = SaveReadiness(wouldSave: check?.wouldSave ?? true, validationErrors: errors,
                                      conflicts: (check?.conflicts ?? []).map(Self.describe))
        }
        return ContextSnapshot(
            id: target.id, role: target.role, name: inspection.name ?? "", queue: Self.queue(inspection.concurrencyType),
            parent: target.parent, registeredObjects: inspection.registeredObjectCount,
            mergesParentSaves: inspection.automaticallyMergesChangesFromParent,
            mergePolicy: "\(inspection.mergePolicy)", inserted: inspection.insertedCount,
            updated: inspection.updatedCount, deleted: inspection.deletedCount, changes: changes,
            unlisted: inspection.pendingChangeCount - inspection.pendingChanges.count, owner: target.owner,
            createdAt: target.createdAt, saveCheck: readiness, busy: false)
    }

    private func change(_ object: InspectedObject, in target: Target, parentValues: [String: InspectedValue]?,
                        parentObject: InspectedObject?) -> PendingChangeSnapshot {
        let id = object.objectID
        // An inserted object lists the properties it has a value for (nil and empty ones say nothing).
        let changed = object.state == .inserted
            ? object.changedProperties.filter { $0.value != .null && $0.value != .references([]) && $0.value != .string("") }
            : object.changedProperties
        let properties: [PropertyChangeSnapshot] = object.state == .deleted ? [] : changed.map { property in
            // A to-many relationship is shown as what the context added and removed: a save
            // applies just that to the parent's current set, so it never conflicts.
            if case .references(let now) = property.value, object.state != .inserted {
                let before: [ObjectID] = { if case .references(let ids) = property.committedValue { ids } else { [] } }()
                return PropertyChangeSnapshot(name: property.name, pending: Self.difference(from: before, to: now),
                                              committed: Self.text(property.committedValue), parent: nil)
            }
            let parent: String?
            switch target.role {
            case .scratchpad, .child:
                parent = parentValues?[property.name].map(Self.text) ?? (object.state == .inserted ? nil : Self.text(property.committedValue))
            case .main:
                let fromWriter = parentObject?.properties.first { $0.name == property.name }
                parent = fromWriter.map { Self.text($0.value) } ?? Self.text(property.committedValue)
            case .writer, .import:
                parent = object.state == .inserted ? nil : Self.text(property.committedValue)
            }
            return PropertyChangeSnapshot(name: property.name, pending: Self.text(property.value),
                                          committed: object.state == .inserted ? "" : Self.text(property.committedValue),
                                          parent: object.state == .inserted ? nil : parent)
        }
        let key = Self.urlKey(id)
        return PendingChangeSnapshot(object: id.description, entity: id.entityName, key: key, kind: object.state.rawValue,
                                     temporaryID: id.isTemporaryID, deletedElsewhere: object.isDeletedElsewhere,
                                     stage: target.role.stage, path: "/contexts/\(target.id)/\(id.entityName)/\(key)",
                                     properties: properties)
    }

    /// Every pending change with its stage, furthest first, then what reached the file lately.
    private func journey(_ contexts: [ContextSnapshot], setAside: [SetAsideSnapshot]) -> [JourneyStep] {
        var steps = contexts.flatMap { context in
            context.changes.map { JourneyStep(object: $0.object, context: context.id, kind: $0.kind, stage: $0.stage,
                                              writtenAt: nil, writtenBy: nil) }
        }
        steps += setAside.map {
            JourneyStep(object: $0.object, context: "set aside", kind: $0.kind, stage: .setAside, writtenAt: nil, writtenBy: nil)
        }
        steps.sort { $0.stage > $1.stage }
        steps += timeline.recentlyWritten().prefix(20).map {
            JourneyStep(object: $0.object, context: nil, kind: $0.kind, stage: .disk, writtenAt: $0.time, writtenBy: $0.context)
        }
        return steps
    }

    // MARK: Wording

    /// The key of an ID in the inspector's URLs: `12`, or `t` and the UUID of a temporary ID.
    static func urlKey(_ id: ObjectID) -> String {
        if let pk = id.primaryKey { return String(pk) }
        return id.uriRepresentation().lastPathComponent
    }

    static func text(_ value: InspectedValue) -> String {
        switch value {
        case .date(let date): return date.formatted(.iso8601)
        case .references(let ids): return ids.isEmpty ? "none" : ids.map(\.description).joined(separator: ", ")
        default: return value.description
        }
    }

    /// `added Invoice/t1a2b3c4d; removed Invoice/p7`.
    static func difference(from before: [ObjectID], to after: [ObjectID]) -> String {
        let added = after.filter { !before.contains($0) }, removed = before.filter { !after.contains($0) }
        var parts: [String] = []
        if !added.isEmpty { parts.append("added " + added.map(\.description).joined(separator: ", ")) }
        if !removed.isEmpty { parts.append("removed " + removed.map(\.description).joined(separator: ", ")) }
        return parts.isEmpty ? "reordered" : parts.joined(separator: "; ")
    }

    static func queue(_ type: ManagedObjectContext.ConcurrencyType) -> String {
        type == .mainQueue ? "main queue" : "private queue"
    }

    static func describe(_ failure: ValidationFailure) -> String {
        "\(failure.objectID.entityName)\(failure.property.map { ".\($0)" } ?? ""): \(failure.message)"
    }

    static func describe(_ conflict: MergeConflict) -> String {
        if conflict.deletedElsewhere { return "\(conflict.objectID) is gone from the parent (deleted meanwhile)" }
        return "\(conflict.objectID): " + conflict.properties.map {
            "\($0.property) is \($0.theirs) in the parent now (was \($0.base) when read; pending \($0.ours))"
        }.joined(separator: "; ")
    }
}

/// Runs `operation` and returns its result, or nil when it takes longer than `deadline` (the
/// operation then finishes in the background and its result is dropped). For work that
/// cannot be cancelled, such as a block queued on a busy context.
func withDeadline<T: Sendable>(_ deadline: Duration, _ operation: @escaping @Sendable () async -> T) async -> T? {
    let once = ResumeOnce<T?>()
    return await withCheckedContinuation { continuation in
        once.set(continuation)
        Task {
            let value = await operation()
            once.resume(returning: value)
        }
        Task {
            try? await Task.sleep(for: deadline)
            once.resume(returning: nil)
        }
    }
}

/// A continuation resumed by whichever of several tasks comes first.
///
/// `Sendable`: the continuation is only touched while its mutex is held, and taken out once.
private final class ResumeOnce<T: Sendable>: Sendable {
    private let continuation = Mutex<CheckedContinuation<T, Never>?>(nil)

    func set(_ continuation: CheckedContinuation<T, Never>) {
        self.continuation.withLock { $0 = continuation }
    }

    func resume(returning value: T) {
        continuation.withLock { $0.take() }?.resume(returning: value)
    }
}
