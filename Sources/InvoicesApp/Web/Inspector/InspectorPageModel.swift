import Foundation

/// The values of `Templates/contexts/inspector.mustache` (a markdown template): the snapshot
/// in words. Values from the data are plain text here; the template's MARKDOWN content type
/// escapes them, so a client named `<b>*Acme*</b>` shows exactly so.
struct InspectorPageModel: Sendable {
    struct Section: Sendable {
        let id: String
        let queue: String
        let role: String
        let parent: String
        let name: String
        let owner: String?
        let age: String?
        let registered: Int
        let merges: String
        let policy: String
        let pending: String
        let busy: Bool
        let hasChanges: Bool
        let changes: [Change]
        let unlisted: String?
        let readiness: Readiness?
    }

    struct Change: Sendable {
        let kind: String
        let object: String
        let path: String
        let notes: String
        let stage: String
        let properties: [Property]
    }

    struct Property: Sendable {
        let name: String
        let pending: String
        /// "parent: Acme Corp", or for a conflict "parent now: …, read as …".
        let beside: String?
        let conflict: Bool
    }

    struct Readiness: Sendable {
        let wouldSave: Bool
        let verdict: String
        let reasons: [String]
    }

    struct Step: Sendable {
        let object: String
        let stage: String
        let bar: String
        let place: String
    }

    struct Event: Sendable {
        let time: String
        let kind: String
        let summary: String
        let duration: String?
    }

    let takenAt: String
    let persist: String
    let deferred: Bool
    let storeFile: String
    let storeUUID: String
    let rowCacheEntries: Int
    let historyToken: String
    let hasHistoryToken: Bool
    /// The stack as text, like the diagrams of the seed articles (built from names and
    /// counts only; no data values).
    let diagram: String
    let sections: [Section]
    /// Scratchpads open but not listed (only the most recent are).
    let unlistedScratchpads: Int
    let hasUnlistedScratchpads: Bool
    let listedScratchpadLimit: Int
    let steps: [Step]
    let hasSteps: Bool
    let events: [Event]
    let hasEvents: Bool
    let remoteDetection: String
    let historyConsumer: String
    let remoteChangesSeen: Int
    /// "3 forms in 2 scratchpads held by this server; 5 open forms in the database, of every server".
    let openForms: String
    let lastRemoteChange: String?
    /// Acknowledged changes set aside by the writer (not on disk).
    let setAside: [SetAside]
    let hasSetAside: Bool
    let writerFailure: String?

    struct SetAside: Sendable {
        let object: String
        let kind: String
        let reason: String
        let link: String
        let properties: [String]
    }

    init(_ snapshot: StackSnapshot) {
        takenAt = InspectorWording.clock(snapshot.takenAt)
        persist = snapshot.persist
        deferred = snapshot.persist.hasPrefix("deferred")
        storeFile = snapshot.coordinator.storeFile
        storeUUID = snapshot.coordinator.storeUUID
        rowCacheEntries = snapshot.coordinator.rowCacheEntries
        historyToken = snapshot.coordinator.historyToken ?? "—"
        hasHistoryToken = snapshot.coordinator.historyToken != nil
        diagram = StackDiagram.text(snapshot)
        sections = snapshot.contexts.map { Self.section($0, at: snapshot.takenAt) }
        unlistedScratchpads = snapshot.unlistedScratchpads
        hasUnlistedScratchpads = snapshot.unlistedScratchpads > 0
        listedScratchpadLimit = StackSnapshotter.scratchpadLimit
        steps = snapshot.journey.map(Self.step)
        hasSteps = !steps.isEmpty
        events = snapshot.timeline.map {
            Event(time: InspectorWording.clock($0.time), kind: $0.kind.rawValue, summary: $0.summary,
                  duration: $0.milliseconds.map(InspectorWording.milliseconds))
        }
        hasEvents = !events.isEmpty
        remoteDetection = snapshot.otherProcesses.detection
        historyConsumer = snapshot.otherProcesses.consumer ?? "none running"
        remoteChangesSeen = snapshot.otherProcesses.remoteChangesSeen
        let forms = snapshot.openForms
        openForms = "\(forms.heldHere) open \(forms.heldHere == 1 ? "form" : "forms") in \(forms.scratchpadsHere) "
            + "\(forms.scratchpadsHere == 1 ? "scratchpad" : "scratchpads") held by this server; "
            + (forms.inDatabase.map { "\($0) open \($0 == 1 ? "form" : "forms") (scratchpads) in the database, of every server" }
                ?? "the database's count cannot be read")
        lastRemoteChange = snapshot.otherProcesses.lastRemoteChange.map {
            "\(InspectorWording.clock($0.time)): \($0.summary)"
        }
        setAside = snapshot.notOnDisk.setAside.map { change in
            SetAside(object: change.object, kind: change.kind, reason: change.reason, link: change.link,
                     properties: change.properties.map {
                         "\($0.name): when edited \($0.base) · in the file \($0.theirs ?? "unchanged") · set aside \($0.yours)"
                     })
        }
        hasSetAside = !setAside.isEmpty
        writerFailure = snapshot.notOnDisk.writerFailure
    }

    private static func section(_ context: ContextSnapshot, at now: Date) -> Section {
        let role: String
        switch context.role {
        case .writer: role = "root: its saves write the file"
        case .main: role = "child of the writer: every page reads here"
        case .scratchpad: role = context.owner == nil ? "child of main: a short-lived scratchpad" : "child of main: an edit form's scratchpad"
        case .import: role = "on the coordinator, beside the chain: an import"
        case .child: role = "child of a scratchpad"
        }
        let owner = context.owner.map { owner in
            "form \(owner.form) (\(owner.object))"
                + (owner.nestedForms > 0 ? " with \(InspectorWording.count(owner.nestedForms, "invoice form")) inside" : "")
                + ", session \(owner.session), expires in \(InspectorWording.age(owner.expiresAt.timeIntervalSince(now)))"
        }
        var pending: [String] = []
        if context.inserted > 0 { pending.append("\(context.inserted) inserted") }
        if context.updated > 0 { pending.append("\(context.updated) updated") }
        if context.deleted > 0 { pending.append("\(context.deleted) deleted") }
        let readiness = context.saveCheck.map { check in
            Readiness(wouldSave: check.wouldSave,
                      verdict: check.wouldSave ? "would save now" : "would not save now",
                      reasons: check.validationErrors.map { "Validation: " + $0 } + check.conflicts.map { "Conflict with its parent: " + $0 })
        }
        return Section(
            id: context.id, queue: context.queue, role: role,
            parent: context.parent, name: context.name, owner: owner,
            age: context.createdAt.map { InspectorWording.age(now.timeIntervalSince($0)) },
            registered: context.registeredObjects, merges: context.mergesParentSaves ? "yes" : "no",
            policy: context.mergePolicy,
            pending: context.busy ? "unknown (the context was busy)" : (pending.isEmpty ? "none" : pending.joined(separator: ", ")),
            busy: context.busy, hasChanges: !context.changes.isEmpty,
            changes: context.changes.map(change),
            unlisted: context.unlisted > 0 ? "and \(context.unlisted) more not listed" : nil,
            readiness: readiness)
    }

    private static func change(_ change: PendingChangeSnapshot) -> Change {
        var notes: [String] = []
        if change.temporaryID { notes.append("temporary ID") }
        if change.deletedElsewhere { notes.append("deleted elsewhere") }
        return Change(
            kind: change.kind, object: change.object, path: change.path,
            notes: notes.isEmpty ? "" : " (" + notes.joined(separator: ", ") + ")",
            stage: change.stage.label,
            properties: change.properties.map { property in
                let beside: String?
                if let parent = property.parent {
                    beside = property.parentChangedMeanwhile
                        ? "parent now: \(InspectorWording.value(parent)), read as \(InspectorWording.value(property.committed))"
                        : "parent: \(InspectorWording.value(parent))"
                } else {
                    beside = nil
                }
                return Property(name: property.name, pending: InspectorWording.value(property.pending), beside: beside,
                                conflict: property.parentChangedMeanwhile && property.parent != property.pending)
            })
    }

    private static func step(_ step: JourneyStep) -> Step {
        let stages: [ChangeStage] = [.scratchpad, .main, .writer, .disk]
        let bar: String
        if step.stage == .importContext {
            bar = "import ● → disk ○"
        } else if step.stage == .setAside {
            bar = "scratchpad ✓ → main ✓ → writer ✓ → disk ✗ (set aside)"
        } else {
            bar = stages.map { stage in
                let name = stage == .scratchpad ? "scratchpad" : stage == .main ? "main" : stage == .writer ? "writer" : "disk"
                return name + (stage < step.stage ? " ✓" : stage == step.stage ? " ●" : " ○")
            }.joined(separator: " → ")
        }
        let place = step.stage == .setAside ? "not on disk: conflict" : step.context.map { "pending in \($0)" }
            ?? "written \(step.writtenAt.map(InspectorWording.clock) ?? "") by \(step.writtenBy ?? "")"
        return Step(object: "\(step.kind) \(step.object)", stage: step.stage.label, bar: bar, place: place)
    }
}
