import Foundation

// The data model every implementation stores, and the value types the harness
// hands to (and expects back from) each workload.

/// Invoice currency. Stored as its raw value (TEXT).
enum Currency: String, CaseIterable, Sendable {
    case eur = "EUR", usd = "USD", jpy = "JPY"

    /// Position in `allCases`; used as a cheap index by `InvoiceDigest`.
    var ordinal: Int {
        switch self {
        case .eur: 0
        case .usd: 1
        case .jpy: 2
        }
    }
}

/// Invoice status. Stored as its raw value (TEXT).
enum InvoiceStatus: String, CaseIterable, Sendable {
    case draft, sent, paid, cancelled

    var ordinal: Int {
        switch self {
        case .draft: 0
        case .sent: 1
        case .paid: 2
        case .cancelled: 3
        }
    }
}

/// One client, with every attribute as a Swift type.
struct ClientData: Sendable, Equatable {
    /// Primary key. In `Dataset.clients` it is the pk the client gets when the
    /// clients are inserted in order into a fresh database (1, 2, 3...).
    var pk: Int64
    var name: String
    var email: String?
    var city: String?
    var country: String?
    var createdAt: Date
}

/// One invoice, with every attribute as a Swift type.
struct InvoiceData: Sendable, Equatable {
    /// Primary key; as for `ClientData.pk`, 1-based insertion order.
    var pk: Int64
    var identifier: String
    /// Stored as TEXT: `amount.description` (lossless), parsed back with
    /// `Decimal(string:)`. Never a REAL, which would round.
    var amount: Decimal
    var currency: Currency
    var status: InvoiceStatus
    var issueDate: Date
    var dueDate: Date
    var notes: String?
    /// The client's pk (its 1-based position in `Dataset.clients`).
    var client: Int64
}

/// The SQL schema and connection settings every implementation must use, so the
/// files are comparable: same tables, same indexes, same pragmas.
enum Schema {
    /// Per-connection settings, applied right after opening. foreign_keys is ON
    /// because GRDB turns it on by default and an app wants its integrity; the
    /// other implementations match it so nobody skips the FK checks.
    static let pragmas = [
        "PRAGMA journal_mode = WAL",
        "PRAGMA synchronous = NORMAL",
        "PRAGMA foreign_keys = ON",
    ]

    /// Tables and indexes. `pk INTEGER PRIMARY KEY` is the rowid (no
    /// AUTOINCREMENT, which would add a sqlite_sequence write per insert).
    /// The UNIQUE constraints create their own indexes.
    static let createSQL = """
        CREATE TABLE Client (
            pk INTEGER PRIMARY KEY,
            name TEXT NOT NULL,
            email TEXT UNIQUE,
            city TEXT,
            country TEXT,
            createdAt REAL
        );
        CREATE TABLE Invoice (
            pk INTEGER PRIMARY KEY,
            identifier TEXT NOT NULL UNIQUE,
            amount TEXT NOT NULL,
            currency TEXT NOT NULL,
            status TEXT NOT NULL,
            issueDate REAL,
            dueDate REAL,
            notes TEXT,
            client INTEGER NOT NULL REFERENCES Client(pk)
        );
        CREATE INDEX Invoice_client ON Invoice(client);
        """
}
