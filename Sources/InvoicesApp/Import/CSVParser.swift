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

    private static let quote = UInt8(ascii: "\""), comma = UInt8(ascii: ","),
                        cr = UInt8(ascii: "\r"), lf = UInt8(ascii: "\n")

    private static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> [CSVRow] {
        var rows: [CSVRow] = []
        var fields: [String] = []
        var field: [UInt8] = []
        var line = 1, recordLine = 1
        var i = 0
        let n = bytes.count

        /// Skips to the start of the next physical line.
        func skipLine() {
            while i < n {
                let b = bytes[i]
                i += 1
                if b == lf { line += 1; return }
                if b == cr {
                    if i < n && bytes[i] == lf { i += 1 }
                    line += 1
                    return
                }
            }
        }
        func endField() {
            fields.append(String(decoding: field, as: UTF8.self))
            field.removeAll(keepingCapacity: true)
        }
        func endRecord(quotedSeen: Bool) {
            endField()
            if !(fields.count == 1 && fields[0].isEmpty && !quotedSeen) {
                rows.append(.record(CSVRecord(line: recordLine, fields: fields)))
            }
            fields.removeAll(keepingCapacity: true)
        }
        /// Consumes a line break at `i` if there is one.
        func lineBreak() -> Bool {
            guard i < n else { return false }
            if bytes[i] == lf { i += 1; line += 1; return true }
            if bytes[i] == cr {
                i += 1
                if i < n && bytes[i] == lf { i += 1 }
                line += 1
                return true
            }
            return false
        }

        records: while i < n {
            recordLine = line
            var quotedSeen = false
            fields: while true {
                // Start of a field.
                if i < n && bytes[i] == quote {
                    quotedSeen = true
                    let openedOn = line
                    i += 1
                    var closed = false
                    while i < n {
                        let b = bytes[i]
                        if b == quote {
                            if i + 1 < n && bytes[i + 1] == quote {
                                field.append(quote)
                                i += 2
                                continue
                            }
                            i += 1
                            closed = true
                            break
                        }
                        if b == cr || b == lf {
                            // A line break inside quotes belongs to the field; count the line.
                            if b == cr && i + 1 < n && bytes[i + 1] == lf {
                                field.append(cr)
                                field.append(lf)
                                i += 2
                            } else {
                                field.append(b)
                                i += 1
                            }
                            line += 1
                            continue
                        }
                        field.append(b)
                        i += 1
                    }
                    if !closed {
                        rows.append(.malformed(CSVSyntaxError(
                            line: openedOn,
                            reason: "a quoted field opened on this line is never closed (a \" is missing).")))
                        field.removeAll()
                        fields.removeAll()
                        break records
                    }
                    // After the closing quote: a separator, a line break or the end.
                    if i >= n { endRecord(quotedSeen: true); break records }
                    if bytes[i] == comma { i += 1; endField(); continue fields }
                    if lineBreak() { endRecord(quotedSeen: true); continue records }
                    rows.append(.malformed(CSVSyntaxError(
                        line: recordLine,
                        reason: "text follows the closing quote of a quoted field; quote the whole field and write quotes inside it twice (\"\").")))
                    field.removeAll()
                    fields.removeAll()
                    skipLine()
                    continue records
                }
                // An unquoted field.
                while i < n {
                    let b = bytes[i]
                    if b == comma || b == cr || b == lf { break }
                    if b == quote {
                        rows.append(.malformed(CSVSyntaxError(
                            line: recordLine,
                            reason: "a quote inside an unquoted field; quote the whole field and write quotes inside it twice (\"\").")))
                        field.removeAll()
                        fields.removeAll()
                        skipLine()
                        continue records
                    }
                    field.append(b)
                    i += 1
                }
                if i >= n { endRecord(quotedSeen: quotedSeen); break records }
                if bytes[i] == comma { i += 1; endField(); continue fields }
                _ = lineBreak()
                endRecord(quotedSeen: quotedSeen)
                continue records
            }
        }
        return rows
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
