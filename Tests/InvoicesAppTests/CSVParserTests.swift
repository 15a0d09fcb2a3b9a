import Foundation
import Testing
@testable import InvoicesApp

@Suite struct CSVParserTests {
    private func records(_ text: String) -> [[String]] {
        CSVParser.parse(text).compactMap { if case .record(let r) = $0 { return r.fields } else { return nil } }
    }

    @Test func plainFieldsSplitOnCommasAndLines() {
        #expect(records("a,b,c\n1,2,3\n") == [["a", "b", "c"], ["1", "2", "3"]])
    }

    @Test func emptyFieldsAreKept() {
        #expect(records("a,,c\n,,\n") == [["a", "", "c"], ["", "", ""]])
    }

    @Test func quotedFieldsHoldCommasQuotesAndLineBreaks() {
        let text = "name,notes\n\"Acme, Inc.\",\"said \"\"hi\"\"\nand left\"\n"
        #expect(records(text) == [["name", "notes"], ["Acme, Inc.", "said \"hi\"\nand left"]])
    }

    @Test func crlfAndLoneCRSeparateRecordsLikeLF() {
        #expect(records("a,b\r\n1,2\r\n") == [["a", "b"], ["1", "2"]])
        #expect(records("a,b\r1,2") == [["a", "b"], ["1", "2"]])
        #expect(records("\"x\r\ny\",z\r\n") == [["x\r\ny", "z"]])
    }

    @Test func theLastRecordNeedsNoLineBreakAndBlankLinesAreSkipped() {
        #expect(records("a,b\n\n1,2") == [["a", "b"], ["1", "2"]])
        #expect(records("a\n\n\n") == [["a"]])
        #expect(records("\"\"\n") == [[""]])
    }

    @Test func recordsKnowTheLineTheyStartOnAcrossEmbeddedLineBreaks() {
        let rows = CSVParser.parse("h1,h2\n\"two\nlines\",x\n\nlast,y\n")
        #expect(rows.map(\.line) == [1, 2, 5])
    }

    @Test func aByteOrderMarkIsIgnored() throws {
        var data = Data([0xEF, 0xBB, 0xBF])
        data.append(Data("name,amount\nAcme,1\n".utf8))
        let rows = try CSVParser.parse(data)
        guard case .record(let header)? = rows.first else { Issue.record("no header"); return }
        #expect(header.fields == ["name", "amount"])
    }

    @Test func utf8TextIsKeptExactly() throws {
        let rows = try CSVParser.parse(Data("Müller Logistik GmbH,Zürich,東京,👍🏽\n".utf8))
        guard case .record(let record)? = rows.first else { Issue.record("no record"); return }
        #expect(record.fields == ["Müller Logistik GmbH", "Zürich", "東京", "👍🏽"])
    }

    @Test func bytesThatAreNotUTF8AreRefusedWithTheirLine() {
        var data = Data("name\nAcme\n".utf8)
        data.append(contentsOf: [0x4D, 0xFC, 0x6C, 0x6C, 0x65, 0x72, 0x0A])   // "Müller" in Latin-1
        #expect(throws: CSVFileError.notUTF8(line: 3)) { try CSVParser.parse(data) }
    }

    @Test func aQuoteInsideAnUnquotedFieldIsReportedAndParsingGoesOn() {
        let rows = CSVParser.parse("a,b\n5\" screen,x\nok,1\n")
        guard case .malformed(let error) = rows[1] else { Issue.record("expected a malformed row"); return }
        #expect(error.line == 2)
        #expect(error.reason.contains("quote inside an unquoted field"))
        guard case .record(let next) = rows[2] else { Issue.record("parsing did not resume"); return }
        #expect(next.fields == ["ok", "1"] && next.line == 3)
    }

    @Test func textAfterAClosingQuoteIsReported() {
        let rows = CSVParser.parse("a,b\n\"x\"y,1\nok,2\n")
        guard case .malformed(let error) = rows[1] else { Issue.record("expected a malformed row"); return }
        #expect(error.line == 2 && error.reason.contains("follows the closing quote"))
        #expect(rows.count == 3)
    }

    @Test func aQuoteNeverClosedIsReportedFromTheLineItOpens() {
        let rows = CSVParser.parse("a,b\nok,1\n\"open,2\nmore\n")
        #expect(rows.count == 3)
        guard case .malformed(let error) = rows[2] else { Issue.record("expected a malformed row"); return }
        #expect(error.line == 3 && error.reason.contains("never closed"))
    }
}

/// The piece-by-piece reader gives what the whole-document parser gives, wherever the pieces
/// are cut: inside a quoted field, between CR and LF, inside a UTF-8 character.
@Suite struct CSVStreamTests {
    private static let document = "\u{FEFF}h1,h2\r\n\"two\r\nlines\",x\r\n\r\nMüller,東京\n\"say \"\"hi\"\"\",\"a,b\"\nbad\"quote,1\nlast,y"

    private static func streamed(_ text: String, pieceSize: Int) throws -> [CSVRow] {
        var stream = CSVStream(.bytes(Data(text.utf8)), pieceSize: pieceSize)
        var rows: [CSVRow] = []
        while let piece = try stream.next() { rows += piece }
        return rows
    }

    @Test(arguments: [1, 2, 3, 5, 7, 11, 64, 1 << 20])
    func everyCutGivesTheSameRecordsAndLines(pieceSize: Int) throws {
        #expect(try Self.streamed(Self.document, pieceSize: pieceSize) == CSVParser.parse(Self.document))
    }

    @Test func aQuotedFieldNeverClosedIsMalformedFromItsLine() throws {
        let text = "a,b\nok,1\n\"open,2\nmore\n"
        #expect(try Self.streamed(text, pieceSize: 4) == CSVParser.parse(text))
    }

    @Test func bytesThatAreNotUTF8AreRefusedWithTheirLine() {
        var bytes = Array("a,b\nok,1\n".utf8)
        bytes += [0xFF, 0x2C, 0x31, 0x0A]
        var stream = CSVStream(.bytes(Data(bytes)), pieceSize: 3)
        #expect(throws: ImportError.notUTF8(line: 3)) { while try stream.next() != nil {} }
    }
}
