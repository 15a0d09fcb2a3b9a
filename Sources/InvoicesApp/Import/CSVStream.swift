import Foundation

/// Reads a CSV document piece by piece, from a file or from bytes in memory, so an import's
/// memory does not grow with the file: each ``next()`` gives the records of the next piece
/// (about ``defaultPieceSize`` bytes), with their lines counted from the start of the document.
///
/// Pieces are cut after a line feed; a record that goes on past the cut (a quoted field
/// with line breaks) waits for the next piece. The bytes are checked to be UTF-8 piece by
/// piece, and a byte order mark at the start is skipped.
struct CSVStream {
    /// Where the bytes come from.
    enum Source {
        case file(FileHandle)
        case bytes(Data)
    }

    /// Bytes read from the source at a time, by default.
    static let defaultPieceSize = 1 << 20

    private let source: Source
    private let pieceSize: Int
    private var offset = 0
    private var pending: [UInt8] = []
    private var line = 1
    private var atStart = true
    private var finished = false

    init(_ source: Source, pieceSize: Int = defaultPieceSize) {
        self.source = source
        self.pieceSize = max(1, pieceSize)
    }

    /// Opens the file at `url`.
    /// - Throws: ``ImportError/unreadable(path:reason:)``.
    static func open(_ url: URL) throws(ImportError) -> CSVStream {
        do {
            return CSVStream(.file(try FileHandle(forReadingFrom: url)))
        } catch {
            let reason = (error as NSError).localizedFailureReason ?? error.localizedDescription
            throw .unreadable(path: url.path, reason: reason)
        }
    }

    /// The records of the next piece (possibly none, when a long record spans pieces); nil
    /// once the document is read.
    /// - Throws: ``CSVFileError/notUTF8(line:)`` for bytes that are not UTF-8; a read error
    ///   of the file as ``ImportError/unreadable(path:reason:)``.
    mutating func next() throws(ImportError) -> [CSVRow]? {
        guard !finished else { return nil }
        let piece = try read()
        let isLast = piece.isEmpty
        pending += piece
        if atStart, pending.count >= 3 || isLast {
            if pending.starts(with: [0xEF, 0xBB, 0xBF]) { pending.removeFirst(3) }
            atStart = false
        }
        // Only whole lines, unless this is the end.
        let end = isLast ? pending.count : (pending.lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? 0)
        if let bad = CSVParser.firstInvalidUTF8Line(Array(pending[..<end])) { throw .notUTF8(line: line + bad - 1) }
        let (rows, used, nextLine) = pending.withUnsafeBufferPointer { buffer in
            var scanner = CSVScanner(UnsafeBufferPointer(rebasing: buffer[..<end]), firstLine: line)
            let used = scanner.scan(final: isLast)
            return (scanner.rows, used, scanner.nextLine)
        }
        pending.removeFirst(used)
        line = nextLine
        if isLast { finished = true }
        return rows
    }

    private mutating func read() throws(ImportError) -> [UInt8] {
        switch source {
        case .bytes(let data):
            let end = min(data.count, offset + pieceSize)
            defer { offset = end }
            return [UInt8](data[data.startIndex + offset..<data.startIndex + end])
        case .file(let handle):
            do {
                return [UInt8](try handle.read(upToCount: pieceSize) ?? Data())
            } catch {
                throw .unreadable(path: "the file", reason: error.localizedDescription)
            }
        }
    }
}
