import Foundation
import Testing
@testable import InvoicesApp

@Suite struct CalendarDayTests {
    @Test func isoDatesParseAndPrintTheSameDay() {
        let parsed = CalendarDay(iso: "2024-02-29")
        #expect(parsed?.year == 2024 && parsed?.month == 2 && parsed?.day == 29)
        #expect(parsed?.description == "2024-02-29")
    }

    @Test func impossibleOrMalformedDatesAreRefused() {
        for text in ["2025-02-29", "2025-13-01", "2025-00-10", "25-01-01", "2025/01/01", "2025-1-1", "2025-01-01T10:00", ""] {
            #expect(CalendarDay(iso: text) == nil, "\(text)")
        }
    }

    @Test func aDayIsStoredAsItsMidnightInUTCAndReadBack() {
        let given = day("2025-06-15")
        #expect(given.date.timeIntervalSince1970 == 1_749_945_600)
        #expect(CalendarDay(given.date) == given)
        #expect(CalendarDay(given.date.addingTimeInterval(86_399)) == given)
    }

    @Test func addingDaysCrossesMonthsYearsAndLeapDays() {
        #expect(day("2024-02-28").adding(days: 1).description == "2024-02-29")
        #expect(day("2024-12-31").adding(days: 1).description == "2025-01-01")
        #expect(day("2025-03-01").adding(days: -1).description == "2025-02-28")
        #expect(day("2025-01-01").days(until: day("2025-12-31")) == 364)
    }

    @Test func daysEncodeAsISOStringsInJSON() throws {
        let data = try JSONEncoder().encode([day("2025-06-15")])
        #expect(String(decoding: data, as: UTF8.self) == #"["2025-06-15"]"#)
        #expect(try JSONDecoder().decode([CalendarDay].self, from: data) == [day("2025-06-15")])
    }
}
