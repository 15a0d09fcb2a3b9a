import Foundation

/// Figures of the running server that the documentation pages quote, so a reader sees the
/// patterns they describe at work: counts and the latest events, never a data value (the
/// docs need no inspector token).
struct LiveFigures: Sendable {
    let takenAt: String
    let persist: String
    let deferred: Bool
    let deferredSeconds: String
    let openScratchpads: Int
    let openForms: Int
    let scratchpadsWithChanges: Int
    let scratchpadPendingChanges: Int
    let mainPendingChanges: Int
    let mainRegisteredObjects: Int
    let writerPendingChanges: Int
    let writerRegisteredObjects: Int
    let importContexts: Int
    /// Objects inserted in some context and not on disk yet: they still have temporary IDs
    /// (unless a save asked for permanent ones early).
    let unsavedInserts: Int
    let privateQueueContexts: Int
    let mainQueueContexts: Int
    let storeFile: String
    let storeUUID: String
    let rowCacheEntries: Int
    let historyToken: String
    let savesSeen: Int
    let lastSave: String
    let lastWriterSave: String
    let mergesSeen: Int
    let lastMerge: String
    let conflictsSeen: Int
    let lastConflict: String
    let droppedSeen: Int
    let lastDropped: String
    let remoteChangesSeen: Int
    let lastRemoteChange: String
    let remoteDetection: String

    /// Reads the figures: counts from every context (on its own queue), the rest from the
    /// timeline.
    static func read(from inspector: Inspector, sessions: SessionStore) async -> LiveFigures {
        let snapshot = await inspector.snapshotter.snapshot(.figures)
        let timeline = inspector.timeline
        let contexts = snapshot.contexts
        let scratchpads = contexts.filter { $0.role == .scratchpad || $0.role == .child }
        let main = contexts.first { $0.role == .main }
        let writer = contexts.first { $0.role == .writer }
        func describe(_ event: InspectorEvent?, none: String) -> String {
            guard let event else { return none }
            return "\(InspectorWording.clock(event.time)): \(event.summary)"
                + (event.milliseconds.map { " (\(InspectorWording.milliseconds($0)))" } ?? "")
        }
        let writerSave = timeline.recent(200).first { $0.kind == .save && $0.context == "writer" }
        let seconds = snapshot.persist.hasPrefix("deferred=") ? String(snapshot.persist.dropFirst("deferred=".count)) : ""
        return LiveFigures(
            takenAt: InspectorWording.clock(snapshot.takenAt), persist: snapshot.persist,
            deferred: !seconds.isEmpty, deferredSeconds: seconds,
            openScratchpads: scratchpads.count + snapshot.unlistedScratchpads, openForms: sessions.openForms().count,
            scratchpadsWithChanges: scratchpads.filter { $0.pendingCount > 0 }.count,
            scratchpadPendingChanges: scratchpads.reduce(0) { $0 + $1.pendingCount },
            mainPendingChanges: main?.pendingCount ?? 0, mainRegisteredObjects: main?.registeredObjects ?? 0,
            writerPendingChanges: writer?.pendingCount ?? 0, writerRegisteredObjects: writer?.registeredObjects ?? 0,
            importContexts: contexts.filter { $0.role == .import }.count,
            unsavedInserts: contexts.reduce(0) { $0 + $1.inserted },
            privateQueueContexts: contexts.filter { $0.queue == "private queue" }.count,
            mainQueueContexts: contexts.filter { $0.queue == "main queue" }.count,
            storeFile: (snapshot.coordinator.storeFile as NSString).lastPathComponent,
            storeUUID: snapshot.coordinator.storeUUID, rowCacheEntries: snapshot.coordinator.rowCacheEntries,
            historyToken: snapshot.coordinator.historyToken ?? "—",
            savesSeen: timeline.count(.save), lastSave: describe(timeline.last(.save), none: "none yet"),
            lastWriterSave: describe(writerSave, none: "none kept"),
            mergesSeen: timeline.count(.merge), lastMerge: describe(timeline.last(.merge), none: "none yet"),
            conflictsSeen: timeline.count(.conflict), lastConflict: describe(timeline.last(.conflict), none: "none yet"),
            droppedSeen: timeline.count(.dropped), lastDropped: describe(timeline.last(.dropped), none: "none yet"),
            remoteChangesSeen: timeline.count(.remote),
            lastRemoteChange: describe(timeline.last(.remote), none: "none seen since the server started"),
            remoteDetection: snapshot.otherProcesses.detection)
    }
}
