#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import HTTPTypes

/// Serves the files of one directory, with content types, `ETag`/`Last-Modified` validation
/// (304 Not Modified) and `Cache-Control`.
///
/// No request reaches outside the directory: a path with `..` or `.` segments (encoded or not),
/// an encoded slash or backslash, a hidden name, or a symbolic link that resolves outside the
/// directory gets 404, the same as a missing file, so a probe learns nothing.
///
/// ```swift
/// let files = try StaticFiles(directory: "Public")
/// router.serveFiles(at: "/static", from: files)      // GET /static/app.css
/// ```
public struct StaticFiles: Sendable {
    /// The directory, resolved (symbolic links followed) when created.
    public let directory: String
    /// The `Cache-Control` value sent with every file.
    public let cacheControl: String
    /// Files larger than this are not served (404), since responses are held in memory.
    public let maximumFileSize: Int

    /// Errors creating a `StaticFiles`.
    public enum Error: Swift.Error, CustomStringConvertible {
        case notADirectory(String)
        public var description: String {
            switch self {
            case .notADirectory(let path): "StaticFiles: \"\(path)\" is not a readable directory; pass the folder of public files (for example Public/)."
            }
        }
    }

    /// Serves `directory`.
    /// - Parameter cacheControl: sent with every file; browsers still revalidate with the ETag.
    /// - Throws: `StaticFiles.Error.notADirectory` when the directory does not exist.
    public init(directory: String, cacheControl: String = "public, max-age=300",
                maximumFileSize: Int = 32 << 20) throws(StaticFiles.Error) {
        guard let resolved = Self.realPath(directory), Self.fileStatus(resolved).map({ $0.st_mode & S_IFMT == S_IFDIR }) == true else {
            throw .notADirectory(directory)
        }
        self.directory = resolved
        self.cacheControl = cacheControl
        self.maximumFileSize = maximumFileSize
    }

    /// The response for the request's `**` segments (see `Router.serveFiles(at:from:)`).
    public func response(for request: Request) -> Response {
        response(forSegments: request.parameters.catchAll, headers: request.headers)
    }

    /// The response for a file given as decoded path segments below the directory.
    public func response(forSegments segments: [String], headers: HTTPFields = [:]) -> Response {
        let notFound = Response.text("Not found.\n", status: .notFound)
        guard !segments.isEmpty, segments.allSatisfy(Self.isSafe) else { return notFound }
        let candidate = directory + "/" + segments.joined(separator: "/")
        // Resolve links, then check the result is still inside: this catches symbolic links
        // pointing outside the directory, whatever their depth.
        guard let resolved = Self.realPath(candidate), resolved.hasPrefix(directory + "/"),
              let status = Self.fileStatus(resolved), status.st_mode & S_IFMT == S_IFREG,
              Int(status.st_size) <= maximumFileSize else { return notFound }

        let modified = Int(status.st_mtim.tv_sec)
        let etag = "\"\(String(Int(status.st_size), radix: 16))-\(String(modified, radix: 16))-\(String(Int(status.st_mtim.tv_nsec), radix: 16))\""
        var validators: HTTPFields = [
            .eTag: etag,
            .lastModified: HTTPDate.string(fromEpochSeconds: modified),
            .cacheControl: cacheControl,
        ]
        if Self.isNotModified(headers: headers, etag: etag, modified: modified) {
            return Response(status: .notModified, headers: validators)
        }
        guard let bytes = Self.readFile(resolved, size: Int(status.st_size)) else { return notFound }
        validators[.contentType] = MediaType.forFile(named: resolved)
        return Response(status: .ok, headers: validators, body: .bytes(bytes))
    }

    /// If-None-Match wins over If-Modified-Since when both are present (RFC 9110 §13.2.2).
    static func isNotModified(headers: HTTPFields, etag: String, modified: Int) -> Bool {
        if let ifNoneMatch = headers[.ifNoneMatch] {
            return ifNoneMatch.split(separator: ",").contains { candidate in
                let tag = candidate.trimmingSpaces()
                return tag == "*" || tag == etag || tag == "W/" + etag
            }
        }
        if let ifModifiedSince = headers[.ifModifiedSince], let since = HTTPDate.epochSeconds(from: ifModifiedSince) {
            return modified <= since
        }
        return false
    }

    private static func isSafe(_ segment: String) -> Bool {
        !segment.isEmpty && !segment.hasPrefix(".")
            && !segment.contains { $0 == "/" || $0 == "\\" || $0 == "\0" }
    }

    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    private static func fileStatus(_ path: String) -> stat? {
        var status = stat()
        return stat(path, &status) == 0 ? status : nil
    }

    private static func readFile(_ path: String, size: Int) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: size)
        var total = 0
        while total < size {
            let count = bytes.withUnsafeMutableBytes { buffer -> Int in
                guard let base = buffer.baseAddress else { return 0 }
                return read(descriptor, base + total, size - total)
            }
            if count <= 0 { break }
            total += count
        }
        return total == size ? bytes : nil
    }
}
