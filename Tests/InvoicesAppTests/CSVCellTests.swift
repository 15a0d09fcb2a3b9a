import Testing
@testable import InvoicesApp

/// Exported cells a spreadsheet opens as text, never as a formula.
@Suite struct CSVCellTests {
    @Test func formulasThatStartLikeNumbersAreNeutralised() {
        #expect(CSVCell.encode("-9+cmd|' /C calc'!A0") == "'-9+cmd|' /C calc'!A0")
        #expect(CSVCell.encode("+1+cmd|' /C calc'!A0") == "'+1+cmd|' /C calc'!A0")
        #expect(CSVCell.encode("-1.5e3") == "'-1.5e3")
        #expect(CSVCell.encode("+1.") == "'+1.")
    }

    @Test func everyFormulaStartIsNeutralised() {
        #expect(CSVCell.encode("=1+2") == "'=1+2")
        #expect(CSVCell.encode("@SUM(A1)") == "'@SUM(A1)")
        #expect(CSVCell.encode("\t=1+2") == "'\t=1+2")
        #expect(CSVCell.encode("\r=1+2") == "\"'\r=1+2\"")
        #expect(CSVCell.encode("\u{FF1D}1+2") == "'\u{FF1D}1+2")
        #expect(CSVCell.encode("=HYPERLINK(\"http://x\",\"y\")") == "\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\"")
    }

    @Test func wholeNumbersAndOrdinaryTextAreKept() {
        #expect(CSVCell.encode("-12.50") == "-12.50")
        #expect(CSVCell.encode("+3") == "+3")
        #expect(CSVCell.encode("1234.50") == "1234.50")
        #expect(CSVCell.encode("INV-2025-0001") == "INV-2025-0001")
        #expect(CSVCell.encode("Acme, Inc.") == "\"Acme, Inc.\"")
    }

    @Test func aQuoteFollowedByACombiningMarkIsDoubledToo() {
        // Found through the multipart fuzz target, whose own writer made the same mistake.
        let name = "x\"\u{301},=cmd|' /C calc'!A0"
        let cell = CSVCell.encode(name)
        #expect(cell == "\"x\"\"\u{301},=cmd|' /C calc'!A0\"")
        #expect(CSVParser.parse(cell + "\n") == [.record(CSVRecord(line: 1, fields: [name]))])
    }

    @Test func aCarriageReturnLineFeedIsQuoted() {
        #expect(CSVCell.encode("two\r\nlines") == "\"two\r\nlines\"")
    }

    @Test func theImportReadsEveryExportedValueBackAsItWas() {
        let values = ["=1+2", "'=1+2", "''=1+2", "'plain", "'", "''", "-12.50", "'-12.50", "@x", "\t=x", "+3",
                      "Acme, Inc.", "山田", "'\u{FF1D}x"]
        for value in values {
            let cell = CSVCell.encode(value)
            guard case .record(let record)? = CSVParser.parse(cell + "\n").first else {
                Issue.record("\(value) did not parse"); continue
            }
            #expect(record.fields.map(CSVCell.decode) == [value], "\(value) → \(cell)")
        }
        // A hand-made file's protected formula is read as the formula's text.
        #expect(CSVCell.decode("'=SUM(A1)") == "=SUM(A1)")
        #expect(CSVCell.decode("'Tis the season") == "'Tis the season")
    }
}
