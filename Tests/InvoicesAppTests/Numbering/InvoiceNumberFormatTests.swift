import Testing
@testable import InvoicesApp

/// Number formats: what they write, what they read back, and what they refuse.
@Suite struct InvoiceNumberFormatTests {
    @Test func theStandardFormatWritesAYearAndAFiveDigitSequence() throws {
        #expect(InvoiceNumberFormat.standard.number(year: 2026, sequence: 42) == "INV-2026-00042")
        #expect(InvoiceNumberFormat.standard.number(year: 2026, sequence: 123_456) == "INV-2026-123456")
        #expect(try InvoiceNumberFormat("INV-{yyyy}-{seq:5}") == .standard)
        #expect(InvoiceNumberFormat.standard.description == "INV-{yyyy}-{seq:5}")
    }

    @Test func otherPlaceholdersAndLiteralsAreWrittenAsAsked() throws {
        let format = try InvoiceNumberFormat("{yy}/{seq} R")
        #expect(format.number(year: 2031, sequence: 7) == "31/7 R")
        #expect(format.description == "{yy}/{seq} R")
        #expect(try InvoiceNumberFormat("F{seq:3}-{yyyy}").number(year: 2026, sequence: 5) == "F005-2026")
    }

    @Test func aNumberInTheFormatIsReadBackForItsYearOnly() throws {
        let format = InvoiceNumberFormat.standard
        #expect(format.sequence(of: "INV-2026-00042", year: 2026) == 42)
        #expect(format.sequence(of: "INV-2026-123456", year: 2026) == 123_456)
        #expect(format.sequence(of: "INV-2025-00042", year: 2026) == nil)
        #expect(format.sequence(of: "INV-2026-42", year: 2026) == nil)       // narrower than the format
        #expect(format.sequence(of: "INV-2026-00042b", year: 2026) == nil)
        #expect(format.sequence(of: "INV-2026-000x2", year: 2026) == nil)
        #expect(format.sequence(of: "Hand typed", year: 2026) == nil)
        #expect(try InvoiceNumberFormat("F{seq:3}-{yyyy}").sequence(of: "F017-2026", year: 2026) == 17)
    }

    @Test func formatsThatCannotNumberAYearAreRefusedByName() {
        #expect(throws: InvoiceNumberFormatError.noYear("INV-{seq}")) { try InvoiceNumberFormat("INV-{seq}") }
        #expect(throws: InvoiceNumberFormatError.sequenceCount("INV-{yyyy}")) { try InvoiceNumberFormat("INV-{yyyy}") }
        #expect(throws: InvoiceNumberFormatError.sequenceCount("{seq}{yyyy}{seq}")) { try InvoiceNumberFormat("{seq}{yyyy}{seq}") }
        #expect(throws: InvoiceNumberFormatError.unknownPlaceholder("month", in: "{yyyy}{month}{seq}")) {
            try InvoiceNumberFormat("{yyyy}{month}{seq}")
        }
        #expect(throws: InvoiceNumberFormatError.unknownPlaceholder("seq:13", in: "{yyyy}{seq:13}")) {
            try InvoiceNumberFormat("{yyyy}{seq:13}")
        }
        #expect(throws: InvoiceNumberFormatError.unclosedPlaceholder("{yyyy-{seq}")) { try InvoiceNumberFormat("{yyyy-{seq}") }
        #expect(throws: InvoiceNumberFormatError.unclosedPlaceholder("{yyyy}}{seq}")) { try InvoiceNumberFormat("{yyyy}}{seq}") }
        #expect(InvoiceNumberFormatError.noYear("X{seq}").description.contains("{yyyy}"))
    }
}
