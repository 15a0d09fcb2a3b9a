import Foundation
import ObjectGraph

/// How values travel to and from PostgreSQL: libpq's text format, typed by the column.
///
/// | Swift | column | text |
/// | --- | --- | --- |
/// | `String` | `text` | as is (PostgreSQL's text cannot hold U+0000: such a string is refused) |
/// | `Int`, `Int64` | `bigint` | decimal |
/// | `Double` | `double precision` | shortest form that reads back exactly; `Infinity`, `NaN` |
/// | `Bool` | `boolean` | `t`, `f` |
/// | `Date` | `timestamptz` | `2024-04-05 19:34:38.250000+00`, in microseconds |
/// | `Decimal` | `numeric` | the canonical decimal text: exact both ways |
/// | `UUID` | `uuid` | the UUID |
/// | `Data` | `bytea` | `\x` and hex |
/// | a to-one relationship | `bigint` | the destination's primary key |
///
/// A `Date` keeps microseconds: finer fractions (a `Date()` has some) are rounded to the
/// nearest microsecond, where SQLite keeps the Double whole.
enum PostgreSQLValue {
    /// The parameter text of a value; nil for SQL NULL.
    static func text(_ value: StoredValue) -> String? {
        switch value {
        case .null, .unloaded, .references: return nil
        case .bool(let v): return v ? "t" : "f"
        case .int(let v): return String(v)
        case .double(let v):
            if v.isNaN { return "NaN" }
            if v.isInfinite { return v < 0 ? "-Infinity" : "Infinity" }
            return "\(v)"
        case .string(let v): return v
        case .date(let v): return timestamp(v)
        case .decimal(let v): return "\(v)"
        case .uuid(let v): return v.uuidString
        case .data(let v): return "\\x" + v.map { hexDigits[Int($0 >> 4)] + hexDigits[Int($0 & 0xf)] }.joined()
        case .reference(let id): return id.primaryKey.map(String.init)
        }
    }

    /// A column's text read as a value of `type`.
    static func decode(_ text: String, as type: AttributeType) -> StoredValue {
        switch type {
        case .string: return .string(text)
        case .int, .int64: return Int64(text).map { .int($0) } ?? .null
        case .bool: return .bool(text == "t")
        case .double: return Double(text).map { .double($0) } ?? .null
        case .date: return date(text).map { .date($0) } ?? .null
        case .decimal: return Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")).map { .decimal($0) } ?? .null
        case .uuid: return UUID(uuidString: text).map { .uuid($0) } ?? .null
        case .data: return .data(bytes(text))
        }
    }

    // MARK: Dates

    private static let microsecondsPerSecond: Int64 = 1_000_000

    /// `YYYY-MM-DD HH:MM:SS.ffffff+00` in UTC.
    static func timestamp(_ date: Date) -> String {
        let micros = Int64((date.timeIntervalSince1970 * 1_000_000).rounded())
        var seconds = micros / microsecondsPerSecond
        var fraction = micros % microsecondsPerSecond
        if fraction < 0 { fraction += microsecondsPerSecond; seconds -= 1 }
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        let year = Int(parts.tm_year) + 1900
        return String(format: "%04d-%02d-%02d %02d:%02d:%02d.%06lld+00", year, Int(parts.tm_mon) + 1, Int(parts.tm_mday),
                      Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec), fraction)
    }

    /// Reads `YYYY-MM-DD HH:MM:SS[.ffffff]+00` (the session's `DateStyle` is ISO, its time
    /// zone UTC).
    static func date(_ text: String) -> Date? {
        let utf8 = Array(text.utf8)
        func number(_ range: Range<Int>) -> Int? {
            guard range.upperBound <= utf8.count else { return nil }
            var value = 0
            for byte in utf8[range] {
                guard byte >= 48 && byte <= 57 else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
              let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19) else { return nil }
        var micros = 0
        var index = 19
        if index < utf8.count && utf8[index] == UInt8(ascii: ".") {
            var digits = 0
            index += 1
            while index < utf8.count, utf8[index] >= 48 && utf8[index] <= 57 {
                if digits < 6 { micros = micros * 10 + Int(utf8[index] - 48); digits += 1 }
                index += 1
            }
            for _ in digits..<6 { micros *= 10 }
        }
        var parts = tm()
        parts.tm_year = Int32(year - 1900)
        parts.tm_mon = Int32(month - 1)
        parts.tm_mday = Int32(day)
        parts.tm_hour = Int32(hour)
        parts.tm_min = Int32(minute)
        parts.tm_sec = Int32(second)
        let seconds = Int64(timegm(&parts))
        return Date(timeIntervalSince1970: Double(seconds * microsecondsPerSecond + Int64(micros)) / 1_000_000)
    }

    // MARK: Bytes

    private static let hexDigits = (0..<16).map { String($0, radix: 16) }

    /// `\x0102ff` (bytea's hex output) as bytes.
    static func bytes(_ text: String) -> Data {
        let utf8 = Array(text.utf8)
        guard utf8.count >= 2, utf8[0] == UInt8(ascii: "\\"), utf8[1] == UInt8(ascii: "x") else { return Data(utf8) }
        func nibble(_ byte: UInt8) -> UInt8 {
            switch byte {
            case 48...57: byte - 48
            case 97...102: byte - 87
            case 65...70: byte - 55
            default: 0
            }
        }
        var data = Data(capacity: (utf8.count - 2) / 2)
        var index = 2
        while index + 1 < utf8.count {
            data.append(nibble(utf8[index]) << 4 | nibble(utf8[index + 1]))
            index += 2
        }
        return data
    }
}
