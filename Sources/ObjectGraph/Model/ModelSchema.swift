import Foundation

/// The parts of a model that shape a store's tables, in a form the store records (as JSON)
/// so that a later model can be compared with the one that wrote the file.
struct ModelSchema: Codable, Sendable, Equatable {
    struct Attribute: Codable, Sendable, Equatable {
        var name: String
        var type: AttributeType
        var isOptional: Bool
    }
    struct Relationship: Codable, Sendable, Equatable {
        var name: String
        var destination: String
        var cardinality: RelationshipDescription.Cardinality
        var inverse: String
    }
    struct Entity: Codable, Sendable, Equatable {
        var name: String
        var attributes: [Attribute]
        var relationships: [Relationship]
        var uniqueness: [[String]]
    }

    var entities: [Entity]

    init(entities: [EntityDescription]) {
        self.entities = entities.map { e in
            Entity(name: e.name,
                   attributes: e.attributes.map { Attribute(name: $0.name, type: $0.type, isOptional: $0.isOptional) },
                   relationships: e.relationships.map {
                       Relationship(name: $0.name, destination: $0.destinationEntityName,
                                    cardinality: $0.cardinality, inverse: $0.inverseName)
                   },
                   uniqueness: e.uniquenessConstraints)
        }.sorted { $0.name < $1.name }
    }

    /// FNV-1a over a canonical rendering: stable across runs and platforms (unlike `Hasher`).
    var versionHash: String {
        var text = ""
        for e in entities {
            text += "E:\(e.name);"
            for a in e.attributes.sorted(by: { $0.name < $1.name }) {
                text += "a:\(a.name):\(a.type.rawValue):\(a.isOptional ? "?" : "!");"
            }
            for r in e.relationships.sorted(by: { $0.name < $1.name }) {
                text += "r:\(r.name):\(r.destination):\(r.cardinality.rawValue):\(r.inverse);"
            }
            for u in e.uniqueness { text += "u:\(u.joined(separator: ","));" }
        }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        return String(hash, radix: 16)
    }

    /// The changes from `old` (the store's) to `self` (the new model).
    /// - Returns: the additions that can be migrated in place, and the differences that cannot.
    func migration(from old: ModelSchema) -> (additions: [SchemaAddition], blockers: [String]) {
        var additions: [SchemaAddition] = []
        var blockers: [String] = []
        let oldByName = Dictionary(uniqueKeysWithValues: old.entities.map { ($0.name, $0) })
        let newNames = Set(entities.map(\.name))
        for e in old.entities where !newNames.contains(e.name) {
            blockers.append("entity \(e.name) was removed")
        }
        for e in entities {
            guard let o = oldByName[e.name] else { additions.append(.entity(e.name)); continue }
            let oldAttrs = Dictionary(uniqueKeysWithValues: o.attributes.map { ($0.name, $0) })
            let newAttrNames = Set(e.attributes.map(\.name))
            for a in o.attributes where !newAttrNames.contains(a.name) {
                blockers.append("attribute \(e.name).\(a.name) was removed")
            }
            for a in e.attributes {
                guard let oa = oldAttrs[a.name] else {
                    if a.isOptional { additions.append(.attribute(entity: e.name, name: a.name)) }
                    else { blockers.append("attribute \(e.name).\(a.name) was added and is not optional") }
                    continue
                }
                if oa.type != a.type {
                    blockers.append("attribute \(e.name).\(a.name) changed type from \(oa.type.rawValue) to \(a.type.rawValue)")
                }
                if oa.isOptional != a.isOptional {
                    blockers.append("attribute \(e.name).\(a.name) changed from \(oa.isOptional ? "optional" : "required") to \(a.isOptional ? "optional" : "required")")
                }
            }
            let oldRels = Dictionary(uniqueKeysWithValues: o.relationships.map { ($0.name, $0) })
            let newRelNames = Set(e.relationships.map(\.name))
            for r in o.relationships where !newRelNames.contains(r.name) {
                blockers.append("relationship \(e.name).\(r.name) was removed")
            }
            for r in e.relationships {
                guard let or = oldRels[r.name] else {
                    blockers.append("relationship \(e.name).\(r.name) was added to an existing entity")
                    continue
                }
                if or != r { blockers.append("relationship \(e.name).\(r.name) changed \(Self.change(from: or, to: r))") }
            }
            if o.uniqueness != e.uniqueness {
                blockers.append("uniqueness constraints of \(e.name) changed from \(Self.render(o.uniqueness)) to \(Self.render(e.uniqueness))")
            }
        }
        return (additions, blockers)
    }
}

extension ModelSchema {
    /// What differs between two versions of a relationship, for error messages:
    /// "from to-many to ordered to-many", "destination from Client to Customer", ...
    static func change(from old: Relationship, to new: Relationship) -> String {
        var parts: [String] = []
        if old.cardinality != new.cardinality {
            parts.append("from \(describe(old.cardinality)) to \(describe(new.cardinality))")
        }
        if old.destination != new.destination {
            parts.append("destination from \(old.destination) to \(new.destination)")
        }
        if old.inverse != new.inverse {
            parts.append("inverse from \(old.inverse) to \(new.inverse)")
        }
        return parts.joined(separator: ", ")
    }

    static func describe(_ cardinality: RelationshipDescription.Cardinality) -> String {
        switch cardinality {
        case .toOne: return "to-one"
        case .toMany: return "to-many"
        case .orderedToMany: return "ordered to-many"
        }
    }

    /// `[email], [name, city]`, or `none`.
    static func render(_ uniqueness: [[String]]) -> String {
        uniqueness.isEmpty ? "none" : uniqueness.map { "[\($0.joined(separator: ", "))]" }.joined(separator: ", ")
    }
}

/// A schema change that can be applied to an existing store in place.
package enum SchemaAddition: Sendable, Equatable {
    case entity(String)
    case attribute(entity: String, name: String)
}
