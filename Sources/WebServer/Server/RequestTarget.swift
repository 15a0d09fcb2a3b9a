import CMicroHTTPD
import HTTPTypes

/// Reads a request's path, query and headers from libmicrohttpd, decoding and validating them.
///
/// The daemon is started with an unescape callback that does nothing, so the path and query
/// arrive here exactly as sent: decoding them here lets a bad escape or invalid UTF-8 get a 400
/// with its reason, and keeps an encoded slash inside its path segment.
enum RequestTarget {
    static func read(url: UnsafePointer<CChar>, connection: OpaquePointer, into state: RequestState) throws(HTTPError) {
        let raw = UnsafeRawBufferPointer(start: url, count: strlen(url)).bindMemory(to: UInt8.self)
        (state.path, state.segments) = try path(raw)

        var collector = Collector()
        withUnsafeMutablePointer(to: &collector) { pointer in
            _ = MHD_get_connection_values_n(connection, .HEADER_KIND, collectHeader, pointer)
            _ = MHD_get_connection_values_n(connection, .GET_ARGUMENT_KIND, collectArgument, pointer)
        }
        if let error = collector.error { throw error }
        state.headers = collector.headers
        state.query = collector.query
    }

    /// The decoded path and its segments, from the path part of a request target as sent.
    /// Empty segments are dropped (`//a/` is `/a`); an encoded slash stays inside its segment.
    /// - Throws: `HTTPError` 400 when the target is not a path, or a segment has a bad escape,
    ///   invalid UTF-8 or a NUL.
    static func path(_ raw: some Collection<UInt8>) throws(HTTPError) -> (path: String, segments: [String]) {
        guard raw.first == UInt8(ascii: "/") else {
            throw HTTPError(.badRequest, "Bad request: the request target must be a path starting with /.")
        }
        var segments: [String] = []
        for piece in raw.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: true) {
            segments.append(try PercentDecoding.decode(piece, plusAsSpace: false, part: "path"))
        }
        if !raw.contains(UInt8(ascii: "%")) {
            return (String(decoding: raw, as: UTF8.self), segments)   // validated above, segment by segment
        }
        return ("/" + segments.joined(separator: "/"), segments)
    }

    /// What the iterators below gather; lives on the stack of `read` during the iteration.
    private struct Collector {
        var headers = HTTPFields()
        var query = QueryParameters()
        var error: HTTPError?
    }

    private static let collectHeader: MHD_KeyValueIteratorN = { cls, _, key, keySize, value, valueSize in
        guard let cls, let key else { return MHD_Result.YES }
        let collector = cls.assumingMemoryBound(to: Collector.self)
        let nameBytes = UnsafeRawBufferPointer(start: key, count: keySize)
        guard let name = HTTPField.Name(String(decoding: nameBytes, as: UTF8.self)) else { return MHD_Result.YES }
        let valueBytes = UnsafeRawBufferPointer(start: value, count: value == nil ? 0 : valueSize)
        collector.pointee.headers.append(HTTPField(name: name, lenientValue: valueBytes))
        return MHD_Result.YES
    }

    private static let collectArgument: MHD_KeyValueIteratorN = { cls, _, key, keySize, value, valueSize in
        guard let cls, let key else { return MHD_Result.YES }
        let collector = cls.assumingMemoryBound(to: Collector.self)
        do throws(HTTPError) {
            let name = try PercentDecoding.decode(UnsafeRawBufferPointer(start: key, count: keySize),
                                                  plusAsSpace: true, part: "query string")
            let text = value == nil ? "" : try PercentDecoding.decode(UnsafeRawBufferPointer(start: value, count: valueSize),
                                                                        plusAsSpace: true, part: "query string")
            collector.pointee.query.append(name: name, value: text)
            return MHD_Result.YES
        } catch {
            collector.pointee.error = error
            return MHD_Result.NO
        }
    }
}
