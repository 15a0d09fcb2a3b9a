import Foundation

/// Messages for people at a terminal: errors and progress go to standard error, so standard
/// output carries only the result.
enum Terminal {
    static func error(_ message: String) {
        FileHandle.standardError.write(Data(("error: " + message + "\n").utf8))
    }

    static func note(_ message: String) {
        FileHandle.standardError.write(Data((message + "\n").utf8))
    }
}
