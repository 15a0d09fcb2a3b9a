import Foundation

/// The picture of the stack, drawn from a snapshot the way the seed articles draw theirs
/// (queue contexts above the coordinator, the store and SQLite): as text for the markdown
/// (``StackDiagram``) and as boxes for the HTML page (``StackPicture``, styled by CSS, no
/// script). Both are built from context names and counts only, never from data values.
enum StackDiagram {
    /// The text diagram, for a code block of `/contexts.md`.
    static func text(_ snapshot: StackSnapshot) -> String {
        let byID = Dictionary(snapshot.contexts.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        func box(_ context: ContextSnapshot) -> String {
            let kind = context.queue == "main queue" ? "main queue" : "private"
            let pending = context.busy ? "busy" : "\(context.pendingCount) pending"
            return "\(context.id) (\(kind), \(pending))"
        }
        var lines: [String] = []
        let scratchpads = snapshot.contexts.filter { $0.role == .scratchpad || $0.role == .child }
        if scratchpads.isEmpty {
            lines.append(" (no scratchpad open)")
        } else {
            for row in stride(from: 0, to: scratchpads.count, by: 3) {
                lines.append(" " + scratchpads[row..<min(row + 3, scratchpads.count)].map(box).joined(separator: "   "))
            }
            if snapshot.unlistedScratchpads > 0 { lines.append(" … and \(snapshot.unlistedScratchpads) more, not drawn") }
        }
        lines += ["        │ save", "        ▼"]
        if let main = byID["main"] { lines.append(" " + box(main)) }
        lines += ["        │ save", "        ▼"]
        let imports = snapshot.contexts.filter { $0.role == .import }
        if let writer = byID["writer"] {
            lines.append(" " + box(writer) + (imports.isEmpty ? "" : "  ◀── merge ── " + imports.map(box).joined(separator: ", ")))
        }
        lines += ["        │ save" + (snapshot.persist.hasPrefix("deferred") ? " (\(snapshot.persist))" : ""), "        ▼"]
        lines.append(" Persistent store coordinator (row cache: \(snapshot.coordinator.rowCacheEntries) rows)"
            + (imports.isEmpty ? "" : "  ◀── save ── " + imports.map(\.id).joined(separator: ", ")))
        lines += ["        │", "        ▼"]
        let file = (snapshot.coordinator.storeFile as NSString).lastPathComponent
        let remote = snapshot.otherProcesses.lastRemoteChange.map { "last remote change \(InspectorWording.clock($0.time))" }
            ?? "no remote change seen"
        let store = snapshot.coordinator.storeKind == "SQLite store" ? " SQLite store \(file) (WAL)" : " \(snapshot.coordinator.storeKind) \(file)"
        lines.append(store + "  ◀── other servers and processes (\(remote))")
        // A backtick run could end the code block this text goes into: names never hold one,
        // but the diagram must not depend on it.
        return lines.joined(separator: "\n").replacingOccurrences(of: "`", with: "'")
    }
}

/// The values of `Templates/contexts/picture.mustache`: the stack as boxes, top to bottom,
/// each linking to its section of the page.
struct StackPicture: Sendable {
    struct Box: Sendable {
        let id: String
        let queue: String
        let detail: String
        let pending: Int
        let hasChanges: Bool
        let busy: Bool
        /// `no-save` when a scratchpad would not save now.
        let state: String
    }

    let scratchpads: [Box]
    let hasScratchpads: Bool
    /// Scratchpads open but not drawn (only the most recent are).
    let unlistedScratchpads: Int
    let hasUnlistedScratchpads: Bool
    let main: Box?
    let writer: Box?
    let imports: [Box]
    let hasImports: Bool
    let rowCacheEntries: Int
    let storeFile: String
    let storeKind: String
    /// Whether the store is an SQLite file (in WAL mode).
    let wal: Bool
    let persist: String
    let deferred: Bool
    let remote: String

    init(_ snapshot: StackSnapshot) {
        func box(_ context: ContextSnapshot) -> Box {
            let detail: String
            switch context.role {
            case .scratchpad, .child: detail = context.owner.map { "form: \($0.object)" } ?? context.name
            case .import: detail = context.name
            case .main: detail = "pages read here"
            case .writer: detail = "saves write the file"
            }
            let refuses = context.saveCheck.map { !$0.wouldSave } ?? false
            return Box(id: context.id, queue: context.queue, detail: detail, pending: context.pendingCount,
                       hasChanges: context.pendingCount > 0, busy: context.busy,
                       state: refuses ? "no-save" : (context.pendingCount > 0 ? "pending" : "clean"))
        }
        scratchpads = snapshot.contexts.filter { $0.role == .scratchpad || $0.role == .child }.map(box)
        hasScratchpads = !scratchpads.isEmpty
        unlistedScratchpads = snapshot.unlistedScratchpads
        hasUnlistedScratchpads = snapshot.unlistedScratchpads > 0
        main = snapshot.contexts.first { $0.role == .main }.map(box)
        writer = snapshot.contexts.first { $0.role == .writer }.map(box)
        imports = snapshot.contexts.filter { $0.role == .import }.map(box)
        hasImports = !imports.isEmpty
        rowCacheEntries = snapshot.coordinator.rowCacheEntries
        storeFile = (snapshot.coordinator.storeFile as NSString).lastPathComponent
        storeKind = snapshot.coordinator.storeKind
        wal = storeKind == "SQLite store"
        persist = snapshot.persist
        deferred = snapshot.persist.hasPrefix("deferred")
        remote = snapshot.otherProcesses.lastRemoteChange.map { "last remote change at \(InspectorWording.clock($0.time))" }
            ?? "no remote change seen yet"
    }
}
