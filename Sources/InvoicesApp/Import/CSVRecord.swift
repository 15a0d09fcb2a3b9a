/// One record of a CSV file: its fields and the line it starts on (1-based, counting
/// physical lines, so a record after a field with an embedded newline has the line a text
/// editor shows).
public struct CSVRecord: Sendable, Hashable {
    public let line: Int
    public let fields: [String]

    public init(line: Int, fields: [String]) {
        self.line = line
        self.fields = fields
    }
}

/// A record the parser could not read, with the line it starts on. The parser skips to the
/// next line and goes on.
public struct CSVSyntaxError: Error, Sendable, Hashable, CustomStringConvertible {
    public let line: Int
    public let reason: String

    public init(line: Int, reason: String) {
        self.line = line
        self.reason = reason
    }

    public var description: String { "Line \(line): \(reason)" }
}

/// What a parse produced, in file order.
public enum CSVRow: Sendable, Hashable {
    case record(CSVRecord)
    case malformed(CSVSyntaxError)

    /// The line the row starts on.
    public var line: Int {
        switch self {
        case .record(let r): return r.line
        case .malformed(let e): return e.line
        }
    }
}

/// Why a file cannot be parsed as CSV at all.
public enum CSVFileError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The bytes are not UTF-8 (a spreadsheet's "CSV" export in a legacy encoding).
    case notUTF8(line: Int)

    public var description: String {
        switch self {
        case .notUTF8(let line):
            return "The file is not UTF-8 text (the first invalid bytes are on line \(line)). Save it as \"CSV UTF-8\" and import it again."
        }
    }
}
