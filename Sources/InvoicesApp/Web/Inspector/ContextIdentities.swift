import Foundation
import ObjectGraph
import Synchronization

/// What a context is for, in the stack of ARCHITECTURE.md.
enum ContextRole: String, Sendable, Codable, CaseIterable {
    /// The private-queue root whose saves write the file.
    case writer
    /// The main-queue child of the writer that pages read.
    case main
    /// A private-queue child of main: an edit form's (or a delete's) scratchpad.
    case scratchpad
    /// A private-queue context on the coordinator, beside the chain: an import.
    case `import`
    /// Any other context of the stack (a child of a scratchpad).
    case child

    /// How far up the chain a change pending in such a context has gone (1: only in a
    /// scratchpad … 3: in the writer); imports write to the file directly.
    var stage: ChangeStage {
        switch self {
        case .scratchpad, .child: .scratchpad
        case .main: .main
        case .writer: .writer
        case .import: .importContext
        }
    }
}

/// Short, stable names for the live contexts of one stack, for URLs and the timeline:
/// `writer`, `main`, `scratchpad-3`, `import-1`. A name is given the first time a context is
/// seen and kept while the context lives; numbers are never reused.
///
/// `Sendable`: `state` is only touched while its mutex is held.
final class ContextIdentities: Sendable {
    private struct Entry: Sendable {
        let context: WeakReference<ManagedObjectContext>
        let id: String
    }

    private struct State: Sendable {
        var entries: [ObjectIdentifier: Entry] = [:]
        var counters: [ContextRole: Int] = [:]
    }

    private let state = Mutex(State())
    let stack: InvoicesStack

    init(stack: InvoicesStack) {
        self.stack = stack
    }

    /// The role of a context of this stack.
    func role(of context: ManagedObjectContext) -> ContextRole {
        if context === stack.writer { return .writer }
        if context === stack.main { return .main }
        guard let parent = context.parent else { return .import }
        return parent === stack.main ? .scratchpad : .child
    }

    /// The context's name here, given now if it has none yet.
    func id(of context: ManagedObjectContext) -> String {
        let role = role(of: context)
        if role == .writer || role == .main { return role.rawValue }
        let key = ObjectIdentifier(context)
        return state.withLock { state in
            // An identifier may be reused by a new object once the old one is gone.
            if let entry = state.entries[key], entry.context.object === context { return entry.id }
            if state.entries.count > 256 { state.entries = state.entries.filter { $0.value.context.object != nil } }
            let number = state.counters[role, default: 0] + 1
            state.counters[role] = number
            let id = "\(role.rawValue)-\(number)"
            state.entries[key] = Entry(context: WeakReference(context), id: id)
            return id
        }
    }

    /// The live context with this name, if any.
    func context(named id: String) -> ManagedObjectContext? {
        if id == "writer" { return stack.writer }
        if id == "main" { return stack.main }
        return state.withLock { state in state.entries.values.first { $0.id == id }?.context.object }
    }
}
