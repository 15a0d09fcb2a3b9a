import Foundation

/// How the inspector and the docs write times, ages and durations.
enum InspectorWording {
    /// `14:03:27` in the server's time zone.
    static func clock(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .current
        let parts = calendar.dateComponents([.hour, .minute, .second], from: date)
        return String(format: "%02d:%02d:%02d", parts.hour ?? 0, parts.minute ?? 0, parts.second ?? 0)
    }

    /// `8 s`, `3 min 4 s`, `2 h 5 min`.
    static func age(_ seconds: Double) -> String {
        let total = max(0, Int(seconds.rounded(.down)))
        if total < 60 { return "\(total) s" }
        if total < 3600 { return "\(total / 60) min \(total % 60) s" }
        return "\(total / 3600) h \(total % 3600 / 60) min"
    }

    /// `12.4 ms`.
    static func milliseconds(_ value: Double) -> String {
        value < 10 ? String(format: "%.2f ms", value) : String(format: "%.1f ms", value)
    }

    /// `1 object`, `3 objects`.
    static func count(_ n: Int, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }

    /// A value as the inspector lists it: empty text is shown as such.
    static func value(_ text: String) -> String { text.isEmpty ? "(empty)" : text }
}
