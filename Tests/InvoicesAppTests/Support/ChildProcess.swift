import Foundation

/// Runs a built executable of this package as a child process.
enum ChildProcess {
    struct Result: Sendable {
        let status: Int32
        let standardOutput: String
        let standardError: String
    }

    /// The package's built executable `name`, found beside the test bundle (the products
    /// folder, e.g. `.build/debug`).
    static func executable(_ name: String) -> URL? {
        var folders: [URL] = []
        if let first = CommandLine.arguments.first {
            folders.append(URL(fileURLWithPath: first).deletingLastPathComponent())
        }
        folders.append(Bundle.main.bundleURL)
        folders.append(Bundle.main.bundleURL.deletingLastPathComponent())
        for folder in folders {
            let candidate = folder.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return nil
    }

    /// Runs `executable` with `arguments` and waits for it to exit.
    static func run(_ executable: URL, _ arguments: [String], in folder: URL? = nil) async throws -> Result {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let folder { process.currentDirectoryURL = folder }
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do { try process.run() } catch { continuation.resume(throwing: error) }
        }
        // The outputs are small: the pipes' buffers hold them until the process has exited.
        let out = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let err = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        return Result(status: status, standardOutput: out, standardError: err)
    }
}
