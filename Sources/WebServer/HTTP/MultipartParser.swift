#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Parses `multipart/form-data` bodies (RFC 7578) into fields and files.
///
/// The body is already complete and within the size limit; parsing works on its bytes without
/// copying them more than once per part. Any structural problem is a 400 naming it.
enum MultipartParser {
    /// - Parameter maximumParts: parts read before the parser stops (the rest is not looked at).
    static func parse(body: [UInt8], contentType: String, maximumParts: Int = .max) throws(HTTPError) -> FormData {
        let type: HeaderParameters
        do { type = try HeaderParameters(parsing: contentType) } catch {
            throw HTTPError(.badRequest, "Bad request: the Content-Type cannot be read (\(error)).")
        }
        guard let boundary = type["boundary"], !boundary.isEmpty, boundary.utf8.count <= 200 else {
            throw HTTPError(.badRequest, "Bad request: multipart/form-data without a boundary parameter.")
        }
        let delimiter = Array("--\(boundary)".utf8)
        let nextDelimiter = Array("\r\n--\(boundary)".utf8)
        var form = FormData()

        guard var position = find(delimiter, in: body, from: 0) else {
            throw HTTPError(.badRequest, "Bad request: the multipart body does not contain its boundary.")
        }
        position += delimiter.count
        var parts = 0
        while parts < maximumParts {
            // After a delimiter: "--" ends the body, CRLF starts a part.
            if hasPrefix(body, at: position, [UInt8(ascii: "-"), UInt8(ascii: "-")]) { break }
            guard hasPrefix(body, at: position, [13, 10]) else {
                throw HTTPError(.badRequest, "Bad request: malformed multipart boundary line.")
            }
            position += 2
            guard let headersEnd = find([13, 10, 13, 10], in: body, from: position) else {
                throw HTTPError(.badRequest, "Bad request: a multipart part has no end of headers.")
            }
            guard let headerText = String(validating: body[position..<headersEnd], as: UTF8.self) else {
                throw HTTPError(.badRequest, "Bad request: multipart part headers are not valid UTF-8.")
            }
            let contentStart = headersEnd + 4
            guard let contentEnd = find(nextDelimiter, in: body, from: contentStart) else {
                throw HTTPError(.badRequest, "Bad request: the multipart body ends without its closing boundary.")
            }
            try addPart(headers: headerText, content: body[contentStart..<contentEnd], to: &form)
            position = contentEnd + nextDelimiter.count
            parts += 1
        }
        return form
    }

    private static func addPart(headers: String, content: ArraySlice<UInt8>, to form: inout FormData) throws(HTTPError) {
        var dispositionHeader: String?
        var partType: String?
        for line in headers.split(separator: "\r\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].trimmingSpaces().lowercased()
            let value = String(line[line.index(after: colon)...].trimmingSpaces())
            if name == "content-disposition" {
                // Two dispositions could name two fields: which one is meant is anyone's guess.
                guard dispositionHeader == nil else {
                    throw HTTPError(.badRequest, "Bad request: a multipart part has two Content-Disposition headers.")
                }
                dispositionHeader = value
            }
            if name == "content-type" { partType = value }
        }
        let disposition: HeaderParameters
        do { disposition = try HeaderParameters(parsing: dispositionHeader ?? "") } catch {
            throw HTTPError(.badRequest, "Bad request: the Content-Disposition of a multipart part cannot be read (\(error)).")
        }
        guard disposition.type == "form-data", let fieldName = disposition["name"] else {
            throw HTTPError(.badRequest, "Bad request: a multipart part has no Content-Disposition form-data name.")
        }
        if let filename = disposition["filename"] {
            // Browsers send a bare name; older ones sent a full client path: keep its last
            // component. Split at scalars: "/" followed by a combining mark is one Character,
            // not equal to "/", yet a slash to any file system.
            let base = filename.unicodeScalars.split(whereSeparator: { $0 == "/" || $0 == "\\" }).last
                .map { String(String.UnicodeScalarView($0)) } ?? ""
            form.files.append(UploadedFile(fieldName: fieldName, filename: base,
                                           contentType: partType ?? "application/octet-stream",
                                           bytes: Array(content)))
        } else {
            guard let value = String(validating: content, as: UTF8.self) else {
                throw HTTPError(.badRequest, "Bad request: the form field \"\(fieldName.prefix(100))\" is not valid UTF-8.")
            }
            form.fields.append(name: fieldName, value: value)
        }
    }

    private static func hasPrefix(_ bytes: [UInt8], at position: Int, _ prefix: [UInt8]) -> Bool {
        position + prefix.count <= bytes.count && bytes[position..<position + prefix.count].elementsEqual(prefix)
    }

    /// The index of `needle` in `bytes` at or after `start`. memchr finds candidates for the
    /// first byte, memcmp checks the rest: bodies may be megabytes.
    private static func find(_ needle: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
        guard let first = needle.first, start <= bytes.count else { return nil }
        return bytes.withUnsafeBytes { haystack -> Int? in
            needle.withUnsafeBytes { pattern -> Int? in
                guard let base = haystack.baseAddress, let patternBase = pattern.baseAddress else { return nil }
                var position = start
                while haystack.count - position >= pattern.count {
                    guard let hit = memchr(base + position, Int32(first), haystack.count - position - pattern.count + 1) else {
                        return nil
                    }
                    let index = base.distance(to: UnsafeRawPointer(hit))
                    if memcmp(base + index, patternBase, pattern.count) == 0 { return index }
                    position = index + 1
                }
                return nil
            }
        }
    }
}
