import HTTPTypes

/// Percent-decoding with UTF-8 validation, for paths, query strings and urlencoded forms.
///
/// Every failure names what was wrong, so the client gets a 400 it can act on.
enum PercentDecoding {
    /// Decodes `%HH` escapes (and `+` as a space when `plusAsSpace`), then validates UTF-8.
    /// - Parameters:
    ///   - part: what is decoded, for the error message ("path", "query parameter").
    ///   - allowsNUL: whether `%00` may stay in the text. Paths and query strings refuse it
    ///     (a path may become a file name); form fields keep it, so the application's own
    ///     validation answers, beside the field, as it does for a multipart form.
    static func decode(_ bytes: some Collection<UInt8>, plusAsSpace: Bool, part: String,
                       allowsNUL: Bool = false) throws(HTTPError) -> String {
        // Fast path: nothing to decode, only validate.
        if !bytes.contains(where: { $0 == UInt8(ascii: "%") || (plusAsSpace && $0 == UInt8(ascii: "+")) }) {
            return try validated(bytes, part: part, allowsNUL: allowsNUL)
        }
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index != bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%") {
                let first = bytes.index(after: index)
                guard first != bytes.endIndex, bytes.index(after: first) != bytes.endIndex,
                      let high = hexValue(bytes[first]), let low = hexValue(bytes[bytes.index(after: first)])
                else {
                    let escape = String(decoding: bytes[index...].prefix(3), as: UTF8.self)
                    throw HTTPError(.badRequest, "Bad request: invalid percent-encoding \"\(escape)\" in the \(part).")
                }
                output.append(high << 4 | low)
                index = bytes.index(index, offsetBy: 3)
            } else {
                output.append(plusAsSpace && byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
                index = bytes.index(after: index)
            }
        }
        return try validated(output, part: part, allowsNUL: allowsNUL)
    }

    private static func validated(_ bytes: some Collection<UInt8>, part: String, allowsNUL: Bool) throws(HTTPError) -> String {
        // Printable ASCII (nearly every path and query) needs no UTF-8 validation.
        if bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) {
            return String(decoding: bytes, as: UTF8.self)
        }
        guard let string = String(validating: bytes, as: UTF8.self) else {
            throw HTTPError(.badRequest, "Bad request: the \(part) is not valid UTF-8.")
        }
        guard allowsNUL || !string.utf8.contains(0) else {
            throw HTTPError(.badRequest, "Bad request: the \(part) contains a NUL character.")
        }
        return string
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// Percent-encodes everything but RFC 3986 unreserved characters (for building URLs and test input).
    static func encode(_ string: String) -> String {
        var output = ""
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
                 UInt8(ascii: "_"), UInt8(ascii: "~"):
                output.unicodeScalars.append(UnicodeScalar(byte))
            default:
                let hex = String(byte, radix: 16, uppercase: true)
                output += "%" + (hex.count == 1 ? "0" + hex : hex)
            }
        }
        return output
    }
}
