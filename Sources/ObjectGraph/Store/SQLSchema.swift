import Foundation

/// How the model maps to SQLite tables. Every piece of SQL ObjectGraph writes takes its names
/// from here, so the store, fetches and predicate translation agree.
///
/// - One table per entity, named after it, with `_pk INTEGER PRIMARY KEY` and
///   `_version INTEGER NOT NULL` (the row version for optimistic locking).
/// - One column per attribute, named after it.
/// - One column per to-one relationship, named after it, holding the destination's `_pk`.
/// - A to-many relationship whose inverse is to-one has no column: its members are the
///   destination rows whose inverse column holds the owner's `_pk`.
/// - A many-to-many relationship has a join table (`owner`, `member`), shared by both sides.
/// - An ordered to-many relationship keeps its order in a join table (`owner`, `member`,
///   `position`), beside the foreign key when the inverse is to-one.
package enum SQLSchema {
    package static let primaryKeyColumn = "_pk"

    /// `"name"` with embedded quotes doubled: an SQL identifier (``SQLDialect/quote(_:)``).
    package static func quote(_ identifier: String) -> String { SQLDialect.quote(identifier) }

    package static func table(_ entity: EntityDescription) -> String { quote(entity.name) }

    /// How a relationship is stored.
    package enum RelationshipMapping: Equatable {
        /// To-one: a column of the source table holding the destination's `_pk`.
        case foreignKey(column: String)
        /// To-many with a to-one inverse: the destination table's column holding the owner's `_pk`.
        case inverseForeignKey(destinationTable: String, column: String)
        /// Many-to-many: rows of a join table; `ownerColumn` holds this side's `_pk`.
        case joinTable(table: String, ownerColumn: String, memberColumn: String)
    }

    package static func mapping(of relationship: RelationshipDescription, in entity: EntityDescription,
                        model: ManagedObjectModel) -> RelationshipMapping {
        if !relationship.isToMany {
            return .foreignKey(column: quote(relationship.name))
        }
        let destination = model.entity(named: relationship.destinationEntityName)
        let inverse = destination?.relationship(named: relationship.inverseName)
        if let inverse, !inverse.isToMany {
            return .inverseForeignKey(destinationTable: quote(relationship.destinationEntityName),
                                      column: quote(inverse.name))
        }
        let (table, ownerIsFirst) = joinTableName(entity: entity.name, relationship: relationship)
        return .joinTable(table: table,
                          ownerColumn: ownerIsFirst ? "\"a\"" : "\"b\"",
                          memberColumn: ownerIsFirst ? "\"b\"" : "\"a\"")
    }

    /// The join table of a many-to-many relationship: the same name from both sides. Column
    /// `a` holds the `_pk` of the side that sorts first.
    package static func joinTableName(entity: String, relationship: RelationshipDescription) -> (String, Bool) {
        let this = "\(entity).\(relationship.name)"
        let other = "\(relationship.destinationEntityName).\(relationship.inverseName)"
        let first = min(this, other), second = max(this, other)
        return (quote(joinTableRawName(first: first, second: second)), this == first)
    }

    /// What the names of the compound indexes the store makes begin with: the store drops an
    /// index under this prefix when the model no longer declares it, and no other.
    package static let compoundIndexPrefix = "_og_index:"

    /// The name of a compound index: `_og_index:Invoice(status,issueDate)`, the same for
    /// the same declaration in every process.
    package static func compoundIndexName(entity: String, columns: [String]) -> String {
        "\(compoundIndexPrefix)\(entity)(\(columns.joined(separator: ",")))"
    }

    /// The full-text index of an entity with searchable attributes (see `SearchIndexTable`).
    package static func searchIndexName(_ entity: String) -> String { "_og_fts_\(entity)" }

    /// The substring index of an entity with `.indexedForSubstringSearch` attributes (an FTS5
    /// trigram table, see `SearchIndexTable(substringsOf:)`).
    package static func substringIndexName(_ entity: String) -> String { "_og_trigram_\(entity)" }

    /// The join table's name, unquoted, from its two sides (`Entity.relationship`, sorted).
    package static func joinTableRawName(first: String, second: String) -> String { "_join_\(first)_\(second)" }

    /// The order table of an ordered to-many relationship (`owner`, `member`, `position`).
    package static func orderTableName(entity: String, relationship: String) -> String {
        quote(orderTableRawName(entity: entity, relationship: relationship))
    }

    package static func orderTableRawName(entity: String, relationship: String) -> String { "_order_\(entity)_\(relationship)" }

    package static func createJoinTable(_ table: String) -> String {
        "CREATE TABLE IF NOT EXISTS \(table) (\"a\" INTEGER NOT NULL, \"b\" INTEGER NOT NULL, PRIMARY KEY (\"a\", \"b\")) WITHOUT ROWID"
    }

    package static func createOrderTable(_ table: String) -> String {
        "CREATE TABLE IF NOT EXISTS \(table) (owner INTEGER NOT NULL, member INTEGER NOT NULL, position INTEGER NOT NULL, PRIMARY KEY (owner, position)) WITHOUT ROWID"
    }

    /// The index on a join table's `b` column (quoted), for look-ups from that side.
    package static func joinTableIndexName(_ table: String) -> String {
        quote(String(table.dropFirst().dropLast()) + "_b")
    }

    /// `CREATE [UNIQUE] INDEX IF NOT EXISTS ...` for an index's `CREATE [UNIQUE] INDEX ...`.
    package static func ifNotExists(_ createIndex: String) -> String {
        guard let keyword = createIndex.range(of: "INDEX ") else { return createIndex }
        return createIndex.replacingCharacters(in: keyword, with: "INDEX IF NOT EXISTS ")
    }

    /// The columns of an entity's table, as `CREATE TABLE` declares them.
    package static func columnDefinitions(of entity: EntityDescription) -> [String] {
        var columns = ["_pk INTEGER PRIMARY KEY", "_version INTEGER NOT NULL DEFAULT 1"]
        for property in entity.properties {
            switch property {
            case .attribute(let a): columns.append("\(quote(a.name)) \(a.type.sqlType)")
            case .relationship(let r) where !r.isToMany: columns.append("\(quote(r.name)) INTEGER")
            case .relationship: break
            }
        }
        return columns
    }

    /// The names (unquoted) of the indexes ObjectGraph makes for `.indexed` attributes, for the
    /// attributes of `entity` that are not declared `.indexed` (any more): a store drops those
    /// it has when it opens, as it drops compound indexes no longer declared.
    package static func undeclaredAttributeIndexNames(of entity: EntityDescription) -> [String] {
        entity.attributes.filter { !$0.isIndexed }.map { "\(entity.name)_\($0.name)_index" }
    }

    /// The indexes ObjectGraph keeps on an entity's table, by name (unquoted), each with the
    /// statement that creates it: to-one columns, `.indexed` attributes, uniqueness constraints.
    package static func indexes(of entity: EntityDescription) -> [(name: String, sql: String)] {
        let table = self.table(entity)
        var indexes: [(String, String)] = []
        for r in entity.relationships where !r.isToMany {
            let name = "\(entity.name)_\(r.name)"
            indexes.append((name, "CREATE INDEX \(quote(name)) ON \(table)(\(quote(r.name)))"))
        }
        for a in entity.attributes where a.isIndexed {
            let name = "\(entity.name)_\(a.name)_index"
            indexes.append((name, "CREATE INDEX \(quote(name)) ON \(table)(\(quote(a.name)))"))
        }
        for (n, group) in entity.uniquenessConstraints.enumerated() {
            let name = "\(entity.name)_unique_\(n)"
            indexes.append((name, "CREATE UNIQUE INDEX \(quote(name)) ON \(table)(\(group.map(quote).joined(separator: ", ")))"))
        }
        return indexes
    }
}

