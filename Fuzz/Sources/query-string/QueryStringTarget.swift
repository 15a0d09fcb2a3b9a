import FuzzSupport
@testable import WebServer

/// Query strings and urlencoded form bodies. Property: the pairs, encoded again and parsed,
/// are the same pairs in the same order.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzQueryString(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = fuzzInput(data, size)
    guard let parameters = try? QueryParameters.parse(input, part: "fuzz", allowsNUL: true) else { return 0 }
    let encoded = parameters.pairs.map { PercentDecoding.encode($0.name) + "=" + PercentDecoding.encode($0.value) }
        .joined(separator: "&")
    let again = try? QueryParameters.parse(Array(encoded.utf8), part: "fuzz", allowsNUL: true)
    require(again?.pairs == parameters.pairs, "\(parameters.pairs) encoded as \(encoded) parse as \(String(describing: again?.pairs))")
    return 0
}
