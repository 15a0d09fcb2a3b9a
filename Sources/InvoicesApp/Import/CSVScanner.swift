/// The state of one pass of ``CSVParser`` over a document's bytes: where it is, which line,
/// and the record being read. One method per part of the grammar.
///
/// It also reads a document piece by piece (``CSVStream``): ``scan(final:)`` over bytes
/// that may end inside a record stops before that record, and says how many bytes it used.
struct CSVScanner: ~Copyable {
    private static let quote = UInt8(ascii: "\""), comma = UInt8(ascii: ","),
                        cr = UInt8(ascii: "\r"), lf = UInt8(ascii: "\n")

    private let bytes: UnsafeBufferPointer<UInt8>
    private var i = 0
    private var line = 1
    /// The line the current record started on.
    private var recordLine = 1
    private var fields: [String] = []
    private var field: [UInt8] = []
    private(set) var rows: [CSVRow] = []

    init(_ bytes: UnsafeBufferPointer<UInt8>, firstLine: Int = 1) {
        self.bytes = bytes
        line = firstLine
        recordLine = firstLine
    }

    /// The line the next record starts on.
    var nextLine: Int { line }

    private var atEnd: Bool { i >= bytes.count }

    /// Reads every record.
    mutating func scanAll() {
        _ = scan(final: true)
    }

    /// Reads the records the bytes hold. Unless `final`, a record the bytes end inside is
    /// left for the next piece: nothing of it is kept, and the count stops before it.
    /// - Returns: how many bytes the records read used.
    mutating func scan(final: Bool) -> Int {
        while !atEnd {
            recordLine = line
            let start = i, rowCount = rows.count
            let complete = scanRecord()
            // Ended by the end of the bytes: the record may go on in the next piece.
            if !final && atEnd && (!complete || (i > 0 && bytes[i - 1] != Self.lf && bytes[i - 1] != Self.cr)) {
                i = start
                line = recordLine
                rows.removeSubrange(rowCount...)
                fields.removeAll()
                field.removeAll()
                return start
            }
            guard complete else { return i }
        }
        return i
    }

    /// What reading a field ended on.
    private enum FieldEnd { case comma, record, malformed, endOfFile }

    /// Reads one record; false when nothing can follow (the end of the input, or a quoted
    /// field never closed).
    private mutating func scanRecord() -> Bool {
        var quotedSeen = false
        while true {
            let end: FieldEnd
            if !atEnd && bytes[i] == Self.quote {
                quotedSeen = true
                guard let after = scanQuotedField() else { return false }
                end = after
            } else {
                end = scanUnquotedField()
            }
            switch end {
            case .comma: endField()
            case .record: endRecord(quotedSeen: quotedSeen); return true
            case .endOfFile: endRecord(quotedSeen: quotedSeen); return false
            case .malformed: return true
            }
        }
    }

    /// Reads a quoted field from its opening quote; nil when it is never closed.
    private mutating func scanQuotedField() -> FieldEnd? {
        let openedOn = line
        i += 1
        var closed = false
        while !atEnd {
            let b = bytes[i]
            if b == Self.quote {
                if i + 1 < bytes.count && bytes[i + 1] == Self.quote {
                    field.append(Self.quote)
                    i += 2
                    continue
                }
                i += 1
                closed = true
                break
            }
            if b == Self.cr && i + 1 < bytes.count && bytes[i + 1] == Self.lf {
                // A line break inside quotes belongs to the field; count the line.
                field.append(contentsOf: [Self.cr, Self.lf])
                i += 2
                line += 1
                continue
            }
            if b == Self.cr || b == Self.lf { line += 1 }
            field.append(b)
            i += 1
        }
        guard closed else {
            malformed(line: openedOn, "a quoted field opened on this line is never closed (a \" is missing).")
            return nil
        }
        // After the closing quote: a separator, a line break or the end.
        if atEnd { return .endOfFile }
        if bytes[i] == Self.comma { i += 1; return .comma }
        if consumeLineBreak() { return .record }
        malformed(line: recordLine, "text follows the closing quote of a quoted field; quote the whole field and write quotes inside it twice (\"\").")
        skipLine()
        return .malformed
    }

    /// Reads an unquoted field up to a separator, a line break or the end.
    private mutating func scanUnquotedField() -> FieldEnd {
        while !atEnd {
            let b = bytes[i]
            if b == Self.comma || b == Self.cr || b == Self.lf { break }
            if b == Self.quote {
                malformed(line: recordLine, "a quote inside an unquoted field; quote the whole field and write quotes inside it twice (\"\").")
                skipLine()
                return .malformed
            }
            field.append(b)
            i += 1
        }
        if atEnd { return .endOfFile }
        if bytes[i] == Self.comma { i += 1; return .comma }
        _ = consumeLineBreak()
        return .record
    }

    private mutating func endField() {
        fields.append(String(decoding: field, as: UTF8.self))
        field.removeAll(keepingCapacity: true)
    }

    /// Ends the record; a blank line (one empty unquoted field) is skipped.
    private mutating func endRecord(quotedSeen: Bool) {
        endField()
        if !(fields.count == 1 && fields[0].isEmpty && !quotedSeen) {
            rows.append(.record(CSVRecord(line: recordLine, fields: fields)))
        }
        fields.removeAll(keepingCapacity: true)
    }

    /// Records a malformed record and drops what was read of it.
    private mutating func malformed(line: Int, _ reason: String) {
        rows.append(.malformed(CSVSyntaxError(line: line, reason: reason)))
        field.removeAll()
        fields.removeAll()
    }

    /// Consumes a line break (LF, CRLF or a lone CR) at the current position, if there is one.
    private mutating func consumeLineBreak() -> Bool {
        guard !atEnd else { return false }
        if bytes[i] == Self.lf { i += 1; line += 1; return true }
        if bytes[i] == Self.cr {
            i += 1
            if !atEnd && bytes[i] == Self.lf { i += 1 }
            line += 1
            return true
        }
        return false
    }

    /// Skips to the start of the next physical line.
    private mutating func skipLine() {
        while !atEnd {
            if consumeLineBreak() { return }
            i += 1
        }
    }
}
