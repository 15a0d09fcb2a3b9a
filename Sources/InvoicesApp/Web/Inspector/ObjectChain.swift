import Foundation
import ObjectGraph

/// One object in each context of a chain, side by side: `/contexts/{context}/{Entity}/{key}`.
/// The chain runs from the named context up through its parents to the store; each column
/// shows what that context holds (changed values marked), or that it holds nothing of its own
/// and sees the value from above.
struct ObjectChain: Sendable, Codable {
    struct Column: Sendable, Codable {
        /// `scratchpad-2`, `main`, `writer`, or `store`.
        let id: String
        /// What the context holds: `updated`, `inserted`, `unchanged`, `fault`, or
        /// `not registered` (it sees its parent's values).
        let state: String
        /// Where the column's context is described on `/contexts`.
        let link: String
    }

    struct Cell: Sendable, Codable {
        let value: String
        /// The value differs from what this context started from (a pending change).
        let changed: Bool
        /// The context does not hold the object: the value shown comes from above.
        let inherited: Bool
    }

    struct Row: Sendable, Codable {
        let property: String
        let cells: [Cell]
    }

    let object: String
    let entity: String
    let temporaryID: Bool
    let columns: [Column]
    let rows: [Row]

    /// Why an object URL cannot be shown.
    enum LookupError: Error, Equatable {
        case unknownContext(String)
        case unknownEntity(String)
        case malformedKey(String)

        /// The status and message the page answers with.
        var message: String {
            switch self {
            case .unknownContext(let id):
                "There is no context \"\(id)\" now: it was saved, cancelled or expired, or never existed. See /contexts for the live ones."
            case .unknownEntity(let name):
                "There is no entity \"\(name)\" in this model (Client and Invoice are)."
            case .malformedKey(let key):
                "\"\(key)\" is not an object key: use the primary key (12) or a temporary ID as /contexts shows it (t and a UUID)."
            }
        }
    }

    /// The object ID an inspector URL names.
    static func objectID(entity: String, key: String, in stack: InvoicesStack) throws(LookupError) -> ObjectID {
        guard stack.coordinator.model.entity(named: entity) != nil else { throw .unknownEntity(entity) }
        let uri: String
        if let pk = Int64(key), pk > 0, let store = stack.coordinator.storeIdentifier {
            uri = "x-objectgraph://\(store.uuidString)/\(entity)/p\(pk)"
        } else if key.hasPrefix("t"), UUID(uuidString: String(key.dropFirst())) != nil {
            uri = "x-objectgraph:///\(entity)/\(key)"
        } else {
            throw .malformedKey(key)
        }
        guard let url = URL(string: uri), let id = ObjectID(uriRepresentation: url) else { throw .malformedKey(key) }
        return id
    }

    /// Reads the object in `context`, each of its ancestors, and the store (the committed
    /// row, through a context of its own), each on its own queue.
    static func read(_ id: ObjectID, from context: ManagedObjectContext, named contextID: String,
                     identities: ContextIdentities) async -> ObjectChain {
        var chain: [(String, ManagedObjectContext)] = [(contextID, context)]
        var next = context.parent
        while let current = next {
            chain.append((identities.id(of: current), current))
            next = current.parent
        }
        var held: [InspectedObject?] = []
        for (_, member) in chain {
            let found = await withDeadline(StackSnapshotter.deadline) {
                await member.perform { member.inspectRegisteredObjects([id])[id] }
            }
            held.append(found ?? nil)
        }
        var stored: InspectedObject?
        if !id.isTemporaryID {
            let reader = ManagedObjectContext(.privateQueue, coordinator: context.persistentStoreCoordinator,
                                              name: "inspector: store read")
            stored = await reader.perform { () -> InspectedObject? in
                // Held while it is inspected: a context keeps unchanged objects only while used.
                guard let object = try? reader.existingObject(with: id) else { return nil }
                return withExtendedLifetime(object) { reader.inspectRegisteredObjects([id])[id] }
            }
        }
        let names = (held + [stored]).compactMap { $0 }.first { !$0.properties.isEmpty }?.properties.map(\.name) ?? []
        var columns = chain.enumerated().map { index, member in
            Column(id: member.0, state: held[index].map(state) ?? "not registered", link: "/contexts#\(member.0)")
        }
        columns.append(Column(id: "store", state: id.isTemporaryID ? "not on disk yet" : (stored == nil ? "no such row" : "committed"),
                              link: "/contexts#coordinator"))
        // A context without its own copy sees the first value held above it.
        let everything = held + [stored]
        let rows = names.map { name in
            Row(property: name, cells: everything.indices.map { index in
                if let own = everything[index], let property = own.properties.first(where: { $0.name == name }) {
                    return Cell(value: StackSnapshotter.text(property.value), changed: property.isChanged && own.state != .unchanged,
                                inherited: false)
                }
                let above = everything[(index + 1)...].lazy.compactMap { $0?.properties.first { $0.name == name } }.first
                return Cell(value: above.map { StackSnapshotter.text($0.value) } ?? "—", changed: false, inherited: true)
            })
        }
        return ObjectChain(object: id.description, entity: id.entityName, temporaryID: id.isTemporaryID,
                           columns: columns, rows: rows)
    }

    private static func state(_ object: InspectedObject) -> String {
        object.isDeletedElsewhere ? "\(object.state.rawValue), deleted elsewhere" : object.state.rawValue
    }
}
