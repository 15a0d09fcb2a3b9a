import FuzzSupport
@testable import WebServer

/// Percent-decoding of paths, query strings and form bodies. The first byte chooses the
/// options; the rest is decoded. Properties: a decoded text encodes and decodes back to
/// itself, and holds no NUL unless NUL is allowed.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPercentDecoding(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = fuzzInput(data, size)
    guard let options = input.first else { return 0 }
    let plusAsSpace = options & 1 != 0, allowsNUL = options & 2 != 0
    guard let decoded = try? PercentDecoding.decode(input.dropFirst(), plusAsSpace: plusAsSpace, part: "fuzz",
                                                    allowsNUL: allowsNUL) else { return 0 }
    require(allowsNUL || !decoded.utf8.contains(0), "a NUL passed: \(decoded.debugDescription)")
    let encoded = PercentDecoding.encode(decoded)
    let again = try? PercentDecoding.decode(Array(encoded.utf8), plusAsSpace: plusAsSpace, part: "fuzz", allowsNUL: allowsNUL)
    require(again == decoded, "\(decoded.debugDescription) encoded as \(encoded) decodes to \(String(describing: again))")
    return 0
}
