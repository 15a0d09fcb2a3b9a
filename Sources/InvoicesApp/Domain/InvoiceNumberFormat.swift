import Foundation

/// How invoice numbers are written, e.g. `INV-{yyyy}-{seq:5}` → `INV-2026-00042`.
///
/// Placeholders: `{yyyy}` the year of the issue date, `{yy}` its last two digits, `{seq}` the
/// number within the year, `{seq:N}` the same padded with zeros to N digits (1–12). Every
/// other character is written as it is. A format names `{seq}` exactly once; numbers are
/// per year, so a format without the year would repeat itself each January and is refused.
public struct InvoiceNumberFormat: Sendable, Hashable, CustomStringConvertible {
    /// The format the dashboard uses unless told otherwise.
    public static let standard = InvoiceNumberFormat(validated: [
        .literal("INV-"), .year(digits: 4), .literal("-"), .sequence(width: 5),
    ])

    enum Part: Sendable, Hashable {
        case literal(String)
        case year(digits: Int)
        case sequence(width: Int)
    }

    let parts: [Part]

    private init(validated parts: [Part]) { self.parts = parts }

    /// Reads a format.
    /// - Throws: ``InvoiceNumberFormatError`` naming what is wrong with it.
    public init(_ text: String) throws(InvoiceNumberFormatError) {
        var parts: [Part] = []
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "{") {
            if open > rest.startIndex { parts.append(.literal(String(rest[..<open]))) }
            guard !rest[..<open].contains("}"), let close = rest[open...].firstIndex(of: "}"),
                  !rest[rest.index(after: open)..<close].contains("{") else { throw .unclosedPlaceholder(text) }
            parts.append(try Self.placeholder(String(rest[rest.index(after: open)..<close]), in: text))
            rest = rest[rest.index(after: close)...]
        }
        if rest.contains("}") { throw .unclosedPlaceholder(text) }
        if !rest.isEmpty { parts.append(.literal(String(rest))) }
        guard parts.count(where: { if case .sequence = $0 { true } else { false } }) == 1 else { throw .sequenceCount(text) }
        guard parts.contains(where: { if case .year = $0 { true } else { false } }) else { throw .noYear(text) }
        guard text.unicodeScalars.allSatisfy({ !CharacterSet.controlCharacters.contains($0) }), text.count <= 40 else {
            throw .unprintable(text)
        }
        self.parts = parts
    }

    private static func placeholder(_ name: String, in text: String) throws(InvoiceNumberFormatError) -> Part {
        switch name {
        case "yyyy": return .year(digits: 4)
        case "yy": return .year(digits: 2)
        case "seq": return .sequence(width: 1)
        default:
            guard name.hasPrefix("seq:"), let width = Int(name.dropFirst(4)), (1...12).contains(width) else {
                throw .unknownPlaceholder(name, in: text)
            }
            return .sequence(width: width)
        }
    }

    /// The number `sequence` of `year`.
    public func number(year: Int, sequence: Int) -> String {
        parts.map { part in
            if case .sequence(let width) = part { Self.padded(sequence, to: width) } else { rendered(part, year: year) }
        }.joined()
    }

    /// The place in `year`'s sequence that `identifier` holds, if it is written in this
    /// format for that year (a hand-typed `INV-2026-00042` holds 42 of 2026).
    public func sequence(of identifier: String, year: Int) -> Int? {
        guard let index = parts.firstIndex(where: { if case .sequence = $0 { true } else { false } }),
              case .sequence(let width) = parts[index] else { return nil }
        let prefix = parts[..<index].map { rendered($0, year: year) }.joined()
        let suffix = parts[(index + 1)...].map { rendered($0, year: year) }.joined()
        guard identifier.count >= prefix.count + suffix.count, identifier.hasPrefix(prefix), identifier.hasSuffix(suffix) else {
            return nil
        }
        let digits = identifier.dropFirst(prefix.count).dropLast(suffix.count)
        guard digits.count >= width, digits.count <= 18, digits.allSatisfy({ $0.isASCII && $0.isNumber }),
              let value = Int(digits), value > 0 else { return nil }
        return value
    }

    /// What every number of `year` begins with: the text before the sequence.
    public func stem(year: Int) -> String {
        parts.prefix { if case .sequence = $0 { false } else { true } }.map { rendered($0, year: year) }.joined()
    }

    private func rendered(_ part: Part, year: Int) -> String {
        switch part {
        case .literal(let text): text
        case .year(let digits): Self.padded(digits == 2 ? year % 100 : year, to: digits)
        case .sequence: ""
        }
    }

    private static func padded(_ value: Int, to width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }

    /// The format as it is written.
    public var description: String {
        parts.map { part in
            switch part {
            case .literal(let text): text
            case .year(let digits): digits == 2 ? "{yy}" : "{yyyy}"
            case .sequence(let width): width == 1 ? "{seq}" : "{seq:\(width)}"
            }
        }.joined()
    }
}

/// Why a number format was refused.
public enum InvoiceNumberFormatError: Error, Equatable, CustomStringConvertible {
    case unclosedPlaceholder(String)
    case unknownPlaceholder(String, in: String)
    case sequenceCount(String)
    case noYear(String)
    case unprintable(String)

    public var description: String {
        switch self {
        case .unclosedPlaceholder(let format):
            "Number format \"\(format)\" has a brace without its partner: write placeholders as {yyyy}, {yy}, {seq} or {seq:5}."
        case .unknownPlaceholder(let name, let format):
            "Number format \"\(format)\" names {\(name)}; the placeholders are {yyyy}, {yy}, {seq} and {seq:N} (N from 1 to 12)."
        case .sequenceCount(let format):
            "Number format \"\(format)\" must name the sequence exactly once, as {seq} or {seq:5}."
        case .noYear(let format):
            "Number format \"\(format)\" has no year: numbers start again each year, so the format needs {yyyy} or {yy}."
        case .unprintable(let format):
            "Number format \"\(format)\" must be at most 40 printable characters."
        }
    }
}
