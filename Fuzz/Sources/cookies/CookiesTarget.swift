import FuzzSupport
@testable import WebServer

/// The `Cookie` request header, and `Set-Cookie` values made from hostile parts. Properties:
/// the header gives at most one cookie per ASCII `;` (plus one), with non-empty names and no
/// `;` in a name or value; a `Set-Cookie` value holds no control character and exactly the
/// attributes asked for, whatever its name, value and path. Separators are counted as bytes:
/// that is what a browser splits at.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCookies(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let text = String(decoding: fuzzInput(data, size), as: UTF8.self)
    let semicolon = UInt8(ascii: ";")
    var cookies: [String: String] = [:]
    Cookie.parse(header: text, into: &cookies)
    require(cookies.count <= text.utf8.filter { $0 == semicolon }.count + 1, "\(cookies) from \(text.debugDescription)")
    for (name, value) in cookies {
        require(!name.isEmpty && !name.utf8.contains(semicolon) && !value.utf8.contains(semicolon),
                "parsed \(name)=\(value) from \(text.debugDescription)")
    }

    let parts = text.split(separator: "\u{1F}", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
    let cookie = Cookie(name: parts[0], value: parts.count > 1 ? parts[1] : "", path: parts.count > 2 ? parts[2] : "/")
    let header = cookie.headerValue
    require(!header.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }, "control character in \(header)")
    // name=value; Path=...; HttpOnly; SameSite=Lax: three separators, none from the parts.
    require(header.utf8.filter { $0 == semicolon }.count == 3, "attributes forged in \(header.debugDescription)")
    return 0
}
