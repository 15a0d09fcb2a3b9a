import Foundation
import FuzzSupport
@testable import InvoicesApp

/// The CSV parser of the import. Properties: rows come in file order with lines from 1; the
/// records, written back with every field quoted, parse back to the same fields.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCSV(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let rows = try? CSVParser.parse(Data(fuzzInput(data, size))) else { return 0 }
    var previous = 1
    for row in rows {
        require(row.line >= previous, "line \(row.line) after line \(previous)")
        previous = row.line
    }
    let records = rows.compactMap { row -> [String]? in
        if case .record(let record) = row { return record.fields }
        return nil
    }
    let written = records.map { fields in
        fields.map(quoted).joined(separator: ",")
    }.joined(separator: "\n")
    let again = CSVParser.parse(written).compactMap { row -> [String]? in
        if case .record(let record) = row { return record.fields }
        return nil
    }
    require(again == records, "\(records) written back parse as \(again)")
    return 0
}

/// `"field"` with each quote written twice, scalar by scalar (a quote followed by a combining
/// mark is one Character, which replacingOccurrences(of: "\"") would leave single).
private func quoted(_ field: String) -> String {
    var text = String.UnicodeScalarView(["\""])
    for scalar in field.unicodeScalars {
        if scalar == "\"" { text.append("\"") }
        text.append(scalar)
    }
    text.append("\"")
    return String(text)
}
