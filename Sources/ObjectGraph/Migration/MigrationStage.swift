import Foundation

/// One step of a ``MigrationPlan``: from one model version to the next.
///
/// ```swift
/// .lightweight(from: 1, to: 2, renaming: [.property(\V1.Invoice.number, to: \V2.Invoice.identifier)])
/// .custom(from: 2, to: 3, name: "amount to line items") { migration in
///     try migration.forEachRow(of: V2.Invoice.self) { invoice, context in
///         let item = V3.LineItem(context: context)
///         item.unitPrice = try invoice[\.amount]
///         item.invoice = try context.existingObject(with: invoice.objectID, as: V3.Invoice.self)
///     }
/// }
/// ```
///
/// What a stage does to the tables is worked out from the two models; a stage only says what
/// the models cannot: which names are renames (not a removal and an addition), and, for a
/// custom stage, how to move the data.
public struct MigrationStage: Sendable {
    /// The version of the files the stage reads.
    public let fromVersion: Int
    /// The version of the files it leaves.
    public let toVersion: Int
    /// How errors name the stage: "2 → 3", or "2 → 3 (amount to line items)".
    public let name: String
    let renames: [MigrationRename]
    let body: (@Sendable (CustomMigration) throws -> Void)?

    /// Whether the stage runs code of its own (a custom stage).
    public var isCustom: Bool { body != nil }

    /// A stage the store runs from the models alone: entities, attributes and relationships
    /// added, removed or renamed; attributes made optional, or required (existing nils take
    /// the new model's declared default); attribute types changed between `Int`, `Int64`,
    /// `Double` and `Decimal` where every stored value converts exactly (else the migration
    /// fails naming the object and its value); string length limits raised (or lowered, when
    /// every stored value fits).
    ///
    /// A property or entity whose name is in both versions is the same one; one that appears
    /// under a new name is a removal and an addition, unless `renaming` says otherwise.
    public static func lightweight(from fromVersion: Int, to toVersion: Int, renaming: [MigrationRename] = [],
                                   name: String? = nil) -> MigrationStage {
        MigrationStage(fromVersion: fromVersion, toVersion: toVersion,
                       name: stageName(fromVersion, toVersion, name), renames: renaming, body: nil)
    }

    /// A stage that runs `body` between adding what the new version adds and removing what
    /// it removes: while it runs, the file holds both versions' tables and columns, so `body`
    /// reads the old version's rows (``CustomMigration/forEachRow(of:batchSize:_:)``) and
    /// writes objects of the new one (``CustomMigration/context``).
    ///
    /// A custom stage takes no renames (a name in one version only is a removal or an
    /// addition) and changes no attribute types: do those in a lightweight stage before or
    /// after it. Added required attributes hold the new model's declared default when
    /// `body` starts.
    ///
    /// - Parameter body: runs on the thread that opens the store, inside the migration's
    ///   transaction. Whatever it throws stops the migration, and the file stays as it was.
    public static func custom(from fromVersion: Int, to toVersion: Int, name: String? = nil,
                              _ body: @escaping @Sendable (CustomMigration) throws -> Void) -> MigrationStage {
        MigrationStage(fromVersion: fromVersion, toVersion: toVersion,
                       name: stageName(fromVersion, toVersion, name), renames: [], body: body)
    }

    private static func stageName(_ from: Int, _ to: Int, _ name: String?) -> String {
        "\(from) → \(to)" + (name.map { " (\($0))" } ?? "")
    }
}

/// A rename a lightweight stage applies: the data stays, under the new name.
///
/// ```swift
/// .entity(V1.Customer.self, to: V2.Client.self)
/// .property(\V1.Client.name, to: \V2.Client.fullName)
/// ```
public struct MigrationRename: Sendable, CustomStringConvertible {
    enum Kind: Sendable {
        case entity(old: String, new: String)
        case property(old: AnyKeyPath & Sendable, new: AnyKeyPath & Sendable)
    }
    let kind: Kind

    /// The entity of class `old` (in the old version) is the entity of class `new`.
    public static func entity(_ old: ManagedObject.Type, to new: ManagedObject.Type) -> MigrationRename {
        MigrationRename(kind: .entity(old: String(describing: old), new: String(describing: new)))
    }

    /// The attribute or relationship `old` (a key path of an old version's class) is `new`
    /// (a key path of the new version's class, on the same entity or its renamed successor).
    public static func property(_ old: AnyKeyPath & Sendable, to new: AnyKeyPath & Sendable) -> MigrationRename {
        MigrationRename(kind: .property(old: old, new: new))
    }

    public var description: String {
        switch kind {
        case .entity(let old, let new): return "\(old) → \(new)"
        case .property(let old, let new): return "\(old) → \(new)"
        }
    }
}
