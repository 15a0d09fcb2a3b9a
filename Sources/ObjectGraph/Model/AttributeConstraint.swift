import Foundation

/// A rule an attribute's value must satisfy when its object is saved.
///
/// ```swift
/// @Attribute(.required, .singleLine, .maxLength(120)) var name: String
/// @Attribute(.unique, .pattern(#"^[^@\s]+@[^@\s]+$"#)) var email: String?
/// @Attribute(.multiLine) var notes: String?
/// @Attribute(.minimum(0)) var amount: Decimal
/// @Attribute(.multiLine, .searchable) var notes: String?
/// @Attribute(.singleLine, .indexedForSubstringSearch) var identifier: String
/// ```
public enum AttributeConstraint: Sendable, Hashable {
    /// Not nil; for strings and data also not empty (strings: not only white space).
    case required
    /// Numeric value at least this (Int, Int64, Double, Decimal attributes).
    case minimum(Decimal)
    /// Numeric value at most this.
    case maximum(Decimal)
    /// Dates not before this.
    case earliest(Date)
    /// Dates not after this.
    case latest(Date)
    /// String length (in characters) at least this.
    case minLength(Int)
    /// String length (in characters) at most this.
    case maxLength(Int)
    /// The whole string matches this regular expression (ICU syntax of `NSRegularExpression`).
    case pattern(String)
    /// One line of text: no control character at all (C0 such as NUL, tab, line feed and
    /// escape; DEL; C1) and no Unicode line or paragraph separator. For names, codes,
    /// identifiers and addresses, whose values end up in one line of a page, a file or a log.
    case singleLine
    /// Text that may span lines: tab, line feed and carriage return are allowed, every other
    /// control character (NUL, escape, DEL, C1) is refused. For notes and descriptions.
    case multiLine
    /// No two objects of the entity have the same value (nil values never clash).
    case unique
    /// The store keeps an index on the attribute, for fast sorting and searching. Adding or
    /// removing it never needs a migration: the index (`<Entity>_<attribute>_index`) is
    /// created when the store opens, and dropped when a store opens with a model that no
    /// longer declares it.
    case indexed
    /// The store keeps a full-text index (SQLite FTS5) over the entity's searchable string
    /// attributes, so a fetch can find objects by the words they contain
    /// (``FetchRequest/searchQuery``), best match first. Like `indexed`, never part of the
    /// model's hash: the index is created, and filled from the rows already there, when the
    /// store opens. String attributes only.
    case searchable
    /// The store keeps an index that finds the attribute's values by any part of them, so a
    /// case-insensitive substring test (`localizedStandardContains` in a predicate) reads the
    /// index instead of every row: on SQLite an FTS5 `trigram` table per entity, on
    /// PostgreSQL a `pg_trgm` index on `lower(attribute)`. Results are exactly those of the
    /// test without it. Like `indexed`, never part of the model's hash: the index is created,
    /// and filled from the rows already there, when the store opens. String attributes only.
    case indexedForSubstringSearch
    /// Persistent history keeps the attribute's value when the object is deleted (in the
    /// change's ``Tombstone``), so a consumer in another process can tell what was deleted:
    /// an email to forget, a file to remove. Like `indexed`, never part of the model's hash.
    case preservedInHistoryOnDeletion
    /// Persistent history records the attribute's values with each change: the new value of
    /// an insert, the old value of a delete, old and new of an update that changes it (see
    /// ``PersistentHistoryChange/values``). `ManagedObject.recordsValuesInHistory` does it for
    /// every attribute of an entity. Never part of the model's hash.
    case recordsValuesInHistory
}
