import FuzzSupport
@testable import WebServer

/// The path of a request target, as libmicrohttpd hands it over (raw: the server decodes it).
/// Properties: a path that is accepted starts with `/`, has no empty segment, and is the
/// segments joined when it had escapes (or the bytes as sent when it had none).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRequestTarget(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = fuzzInput(data, size)
    guard let (path, segments) = try? RequestTarget.path(input) else { return 0 }
    require(path.utf8.first == UInt8(ascii: "/"), "path \(path.debugDescription) from \(input)")
    require(!segments.contains(""), "empty segment in \(segments) from \(input)")
    require(!segments.contains { $0.utf8.contains(0) }, "NUL in \(segments)")
    if input.contains(UInt8(ascii: "%")) {
        require(path == "/" + segments.joined(separator: "/"), "path \(path.debugDescription) for \(segments)")
    } else {
        require(Array(path.utf8) == input, "path \(path.debugDescription) for \(input)")
    }
    return 0
}
