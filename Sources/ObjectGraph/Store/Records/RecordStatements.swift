import Foundation

/// The statements of ``StoreRecords``, the same text in every dialect: one table,
/// `_og_record`, of text values keyed by (table name, key), each with an optional group and
/// an expiry in milliseconds since 1970.
package enum RecordStatements {
    /// Makes the table and its indexes when they are missing (first use).
    package static let schema: [SQLFragment] = [
        """
        CREATE TABLE IF NOT EXISTS _og_record (kind TEXT NOT NULL, key TEXT NOT NULL, grp TEXT, \
        value TEXT NOT NULL, expires BIGINT NOT NULL, PRIMARY KEY (kind, key))
        """,
        "CREATE INDEX IF NOT EXISTS _og_record_expires ON _og_record (expires)",
        "CREATE INDEX IF NOT EXISTS _og_record_group ON _og_record (kind, grp)",
    ]

    package static func value(_ kind: String, key: String, now: Int64) -> SQLFragment {
        "SELECT value FROM _og_record WHERE kind = \(.string(kind)) AND key = \(.string(key)) AND expires > \(.int(now))"
    }

    package static func set(_ kind: String, key: String, value: String, group: String?, expires: Int64,
                            dialect: SQLDialect) -> SQLFragment {
        dialect.upsert(into: "_og_record", key: "kind, key", columns: ["grp", "value", "expires"],
                       values: [.string(kind), .string(key), group.map(StoredValue.string) ?? .null, .string(value),
                                .int(expires)])
    }

    package static func remove(_ kind: String, key: String) -> SQLFragment {
        "DELETE FROM _og_record WHERE kind = \(.string(kind)) AND key = \(.string(key))"
    }

    package static func removeGroup(_ kind: String, group: String) -> SQLFragment {
        "DELETE FROM _og_record WHERE kind = \(.string(kind)) AND grp = \(.string(group))"
    }

    package static func extendGroup(_ kind: String, group: String, expires: Int64) -> SQLFragment {
        "UPDATE _og_record SET expires = \(.int(expires)) WHERE kind = \(.string(kind)) AND grp = \(.string(group)) AND expires < \(.int(expires))"
    }

    package static func removeExpired(_ kind: String, now: Int64) -> SQLFragment {
        "DELETE FROM _og_record WHERE kind = \(.string(kind)) AND expires <= \(.int(now))"
    }

    package static func count(_ kind: String, now: Int64) -> SQLFragment {
        "SELECT COUNT(*) FROM _og_record WHERE kind = \(.string(kind)) AND expires > \(.int(now))"
    }

    package static func keys(_ kind: String, group: String, now: Int64) -> SQLFragment {
        "SELECT key FROM _og_record WHERE kind = \(.string(kind)) AND grp = \(.string(group)) AND expires > \(.int(now)) ORDER BY key"
    }
}
