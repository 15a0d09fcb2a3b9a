#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// HTTP dates (`Sun, 06 Nov 1994 08:49:37 GMT`, RFC 9110 IMF-fixdate), formatted and parsed
/// without Foundation's date formatters, which are slow and not thread-friendly.
enum HTTPDate {
    private static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                 "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// Formats seconds since 1970 as an IMF-fixdate.
    static func string(fromEpochSeconds seconds: Int) -> String {
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) "
            + "\(parts.tm_year + 1900) \(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }

    /// Parses an IMF-fixdate into seconds since 1970; nil for anything else (then the header is ignored).
    static func epochSeconds(from string: String) -> Int? {
        // "Sun, 06 Nov 1994 08:49:37 GMT"
        let fields = string.split(separator: " ")
        guard fields.count == 6, fields[5] == "GMT",
              let day = Int32(fields[1]), let month = months.firstIndex(of: String(fields[2])),
              let year = Int32(fields[3]) else { return nil }
        let time = fields[4].split(separator: ":")
        guard time.count == 3, let hour = Int32(time[0]), let minute = Int32(time[1]),
              let second = Int32(time[2]) else { return nil }
        // Client input: keep every field in range before doing arithmetic on it.
        guard (1...31).contains(day), (1900...9999).contains(year), (0...23).contains(hour),
              (0...59).contains(minute), (0...60).contains(second) else { return nil }
        var parts = tm()
        parts.tm_year = year - 1900
        parts.tm_mon = Int32(month)
        parts.tm_mday = day
        parts.tm_hour = hour
        parts.tm_min = minute
        parts.tm_sec = second
        return Int(timegm(&parts))
    }
}
