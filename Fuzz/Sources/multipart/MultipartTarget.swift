import FuzzSupport
@testable import WebServer

/// `multipart/form-data` bodies and the header parameters they rely on. The first line is the
/// Content-Type, the rest the body. Properties: parsed file names have no directory part;
/// header parameters written back (quoted, escaped) read back the same.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMultipart(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = fuzzInput(data, size)
    let newline = input.firstIndex(of: UInt8(ascii: "\n")) ?? input.endIndex
    let contentType = String(decoding: input[..<newline], as: UTF8.self)
    let body = Array(input[min(newline + 1, input.endIndex)...])

    if let form = try? MultipartParser.parse(body: body, contentType: contentType) {
        for file in form.files {
            // Bytes: a "/" followed by a combining mark is not the Character "/", yet still a slash.
            require(!file.filename.utf8.contains(UInt8(ascii: "/")) && !file.filename.utf8.contains(UInt8(ascii: "\\")),
                    "directory in \(file.filename.debugDescription)")
        }
    }
    if let parameters = try? HeaderParameters(parsing: contentType), !parameters.type.utf8.contains(UInt8(ascii: ";")) {
        let written = parameters.type + parameters.parameters.sorted { $0.key < $1.key }.map { name, value in
            "; \(name)=" + quoted(value)
        }.joined()
        let again = try? HeaderParameters(parsing: written)
        require(again == parameters, "\(contentType) written as \(written) reads as \(String(describing: again))")
    }
    return 0
}

/// `"value"` with `\` and `"` escaped, scalar by scalar (a quote followed by a combining mark is
/// one Character, which replacingOccurrences(of: "\"") would not escape).
private func quoted(_ value: String) -> String {
    var text = String.UnicodeScalarView(["\""])
    for scalar in value.unicodeScalars {
        if scalar == "\"" || scalar == "\\" { text.append("\\") }
        text.append(scalar)
    }
    text.append("\"")
    return String(text)
}
