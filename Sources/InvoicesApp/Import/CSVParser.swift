import Foundation

/// An RFC 4180 CSV parser, Foundation only.
///
/// - Fields are separated by commas; records by CRLF, LF or a lone CR.
/// - A field may be quoted with `"`: it can then hold commas, line breaks and quotes written
///   twice (`"say ""hi"""` → `say "hi"`).
/// - UTF-8, with or without a byte order mark.
/// - Blank lines are skipped.
/// - A malformed record (a quote inside an unquoted field, text after a closing quote) is
///   returned as ``CSVRow/malformed(_:)`` with its line; parsing resumes on the next line.
///   A quoted field still open at the end of the file is malformed from the line it opened.
public enum CSVParser {
    /// Parses a whole document.
    /// - Throws: ``CSVFileError/notUTF8(line:)`` when the bytes are not UTF-8.
    public static func parse(_ data: Data) throws(CSVFileError) -> [CSVRow] {
        var bytes = [UInt8](data)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
        if let line = firstInvalidUTF8Line(bytes) { throw .notUTF8(line: line) }
        return bytes.withUnsafeBufferPointer { parse($0) }
    }

    /// Parses text already in memory.
    public static func parse(_ text: String) -> [CSVRow] {
        var bytes = Array(text.utf8)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
        return bytes.withUnsafeBufferPointer { parse($0) }
    }

    private static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> [CSVRow] {
        var scanner = CSVScanner(bytes)
        scanner.scanAll()
        return scanner.rows
    }

    /// The 1-based line of the first bytes that are not UTF-8, or nil when all are.
    static func firstInvalidUTF8Line(_ bytes: [UInt8]) -> Int? {
        if String(validating: bytes, as: UTF8.self) != nil { return nil }
        var line = 1
        var start = 0
        for (index, byte) in bytes.enumerated() where byte == UInt8(ascii: "\n") {
            if String(validating: bytes[start..<index], as: UTF8.self) == nil { return line }
            line += 1
            start = index + 1
        }
        return line
    }
}
