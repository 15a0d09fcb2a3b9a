import FuzzSupport
@testable import WebServer

/// Server-sent events written from hostile values, read back as a browser reads the stream
/// (lines end at CR LF, LF or CR). Properties: exactly one event arrives, with the event
/// name and id without their line breaks, and the data with each line break as one LF.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEventStream(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let text = String(decoding: fuzzInput(data, size), as: UTF8.self)
    let parts = text.split(separator: "\u{1F}", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
    let event = ServerSentEvent(event: parts.count > 1 ? parts[1] : nil, data: parts[0], id: parts.count > 2 ? parts[2] : nil)
    let read = BrowserReading(event.encoded)
    require(read.events == 1, "\(read.events) events from \(event)")
    require(read.event == event.event.map(withoutLineBreaks), "event \(String(describing: read.event)) from \(event)")
    require(read.id == event.id.map(withoutLineBreaks), "id \(String(describing: read.id)) from \(event)")
    require(read.data == normalizedLineBreaks(event.data), "data \(read.data.debugDescription) from \(event)")
    return 0
}

private func withoutLineBreaks(_ text: String) -> String {
    String(String.UnicodeScalarView(text.unicodeScalars.filter { $0 != "\r" && $0 != "\n" }))
}

private func normalizedLineBreaks(_ text: String) -> String {
    String(String.UnicodeScalarView(lines(of: text).joined(separator: ["\n"])))
}

/// The lines of `text`, ended by CR LF, LF or CR (the last one may have no end).
private func lines(of text: String) -> [[Unicode.Scalar]] {
    var lines: [[Unicode.Scalar]] = [[]]
    var previousWasCarriageReturn = false
    for scalar in text.unicodeScalars {
        defer { previousWasCarriageReturn = scalar == "\r" }
        if scalar == "\n" && previousWasCarriageReturn { continue }
        if scalar == "\r" || scalar == "\n" { lines.append([]) } else { lines[lines.count - 1].append(scalar) }
    }
    return lines
}

/// The event-stream parsing of the HTML standard, for one stream: fields by line, an empty
/// line dispatches.
private struct BrowserReading {
    var events = 0
    var event: String?
    var id: String?
    var data = ""

    init(_ stream: String) {
        var dataLines: [String] = []
        for line in lines(of: stream) {
            let text = String(String.UnicodeScalarView(line))
            if text.isEmpty {
                if !dataLines.isEmpty { events += 1; data = dataLines.joined(separator: "\n"); dataLines = [] }
                continue
            }
            let field = text.unicodeScalars.prefix { $0 != ":" }
            var value = text.unicodeScalars.dropFirst(field.count + 1)
            if value.first == " " { value = value.dropFirst() }
            switch String(String.UnicodeScalarView(field)) {
            case "event": event = String(String.UnicodeScalarView(value))
            case "id": id = String(String.UnicodeScalarView(value))
            case "data": dataLines.append(String(String.UnicodeScalarView(value)))
            default: break
            }
        }
    }
}
