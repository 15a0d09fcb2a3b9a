import Foundation
import ObjectGraph

/// One saved change of a client, invoice or payment, as its history page shows it: when, who
/// (a visitor's label, an importing process), through what (which form or import), and each
/// field from old to new. Read from persistent history with values (``InvoicesStack/history(of:primaryKey:labels:limit:)``),
/// so changes made by other processes and by batch requests are there too.
public struct RecordHistoryEntry: Sendable, Hashable, Codable {
    /// The history transaction's number: later changes have larger ones.
    public let number: Int64
    public let date: Date
    /// Who: the visitor's label, `invoices import (pid 123)`, `dashboard`.
    public let who: String
    /// Through what: `form: edit client 3`, `upload: march.csv`, `import: march.csv`.
    public let via: String
    /// `created`, `changed` or `deleted`.
    public let kind: String
    /// Written by another process than this server.
    public let byAnotherProcess: Bool
    public let fields: [FieldChange]

    /// One field's values before and after.
    public struct FieldChange: Sendable, Hashable, Codable {
        /// The property's name in the model.
        public let name: String
        /// What forms call it.
        public let label: String
        public let old: String?
        public let new: String?
    }

    /// Reads `change` (one object's part of `transaction`); `labels` are the form's field labels.
    init(_ transaction: PersistentHistoryTransaction, _ change: PersistentHistoryChange, labels: [String: String]) {
        number = transaction.number
        date = transaction.timestamp
        who = transaction.author ?? "unknown"
        via = transaction.contextName ?? ""
        byAnotherProcess = transaction.processID != ProcessInfo.processInfo.processIdentifier
        switch change.kind {
        case .insert: kind = "created"
        case .update: kind = "changed"
        case .delete: kind = "deleted"
        }
        fields = change.values.keys.sorted { (labels[$0] ?? $0) < (labels[$1] ?? $1) }.compactMap { name in
            guard let value = change.values[name] else { return nil }
            let old = value.old.flatMap(Self.text), new = value.new.flatMap(Self.text)
            guard old != new else { return nil }
            return FieldChange(name: name, label: labels[name] ?? name, old: old, new: new)
        }
    }

    /// A value as a person reads it; nil for no value. Dates are days here (midnight UTC).
    static func text(_ value: HistoryValue) -> String? {
        switch value {
        case .null: return nil
        case .date(let date): return CalendarDay(date).description
        case .decimal(let amount): return "\(amount)"
        case .reference(let id): return id.primaryKey.map { "\(id.entityName) \($0)" } ?? id.entityName
        default: return value.description
        }
    }
}
