/// The input libFuzzer hands a target, as bytes (it may pass no pointer for an empty input).
public func fuzzInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> [UInt8] {
    guard let data, size > 0 else { return [] }
    return Array(UnsafeBufferPointer(start: data, count: size))
}

/// Stops the run when a property of the parser does not hold: libFuzzer keeps the input as a
/// crash, and replaying it shows `message`. (A fatal error, not an assertion, so it also
/// stops optimized builds.)
public func require(_ condition: Bool, _ message: @autoclosure () -> String,
                    file: StaticString = #fileID, line: UInt = #line) {
    if !condition { fatalError(message(), file: file, line: line) }
}
