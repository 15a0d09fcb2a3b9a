import Foundation

/// Where an import's CSV comes from: a file, read piece by piece, or bytes already in memory
/// (an upload).
public enum ImportSource: Sendable {
    case file(URL)
    case bytes(Data)

    /// A stream over the whole document, from its start.
    /// - Throws: ``ImportError/unreadable(path:reason:)`` when the file cannot be opened.
    func stream() throws(ImportError) -> CSVStream {
        switch self {
        case .file(let url): try CSVStream.open(url)
        case .bytes(let data): CSVStream(.bytes(data))
        }
    }
}
