import Foundation
import Synchronization

/// One reason an object cannot be saved. All failures of a save are reported together.
public struct ValidationFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, with Core Data's error number as `rawValue`.
    public enum Code: Int, Sendable, Hashable {
        case missingMandatoryProperty = 1570
        case relationshipLacksMinimumCount = 1580
        case relationshipExceedsMaximumCount = 1590
        case relationshipDeniedDelete = 1600
        case numberTooLarge = 1610
        case numberTooSmall = 1620
        case dateTooLate = 1630
        case dateTooSoon = 1640
        case stringTooLong = 1660
        case stringTooShort = 1670
        case stringPatternMatching = 1680
        /// A control character in `.singleLine` or `.multiLine` text. ObjectGraph's own code,
        /// beside Core Data's string errors (Core Data has no such rule).
        case stringControlCharacter = 1685
        case uniquenessViolation = 133021
        case custom = 1550
    }

    public let code: Code
    /// The object that failed; its ID may be temporary.
    public let objectID: ObjectID
    /// The property at fault, when there is one.
    public let property: String?
    /// A sentence a user can act on ("Email is not a valid address.").
    public let message: String

    /// A failure for custom validation in `ManagedObject.validate()`.
    public init(property: String?, message: String, objectID: ObjectID? = nil) {
        self.code = .custom
        self.objectID = objectID ?? ObjectID.makeTemporary(entityCode: 0)
        self.property = property
        self.message = message
    }

    init(_ code: Code, _ object: ManagedObject, property: String?, message: String) {
        self.code = code
        self.objectID = object.objectID
        self.property = property
        self.message = message
    }

    init(code: Code, objectID: ObjectID, property: String?, message: String) {
        self.code = code
        self.objectID = objectID
        self.property = property
        self.message = message
    }

    public var description: String {
        "\(objectID.entityName)\(property.map { ".\($0)" } ?? ""): \(message)"
    }
}

/// Checks the declared constraints and the custom `validate()` hook of objects about to be saved.
enum Validator {
    static func validate(_ object: ManagedObject, context: ManagedObjectContext) -> [ValidationFailure] {
        var failures: [ValidationFailure] = []
        let entity = object.entity
        for (index, property) in entity.properties.enumerated() {
            switch property {
            case .attribute(let a):
                if a.constraints.isEmpty { continue }
                failures += check(object.values[index], attribute: a, object: object)
            case .relationship(let r):
                if !r.isToMany {
                    if r.isRequired, case .null = object.values[index] {
                        failures.append(ValidationFailure(.missingMandatoryProperty, object, property: r.name,
                                                          message: "\(label(r.name)) is required."))
                    }
                } else if r.minCount != nil || r.maxCount != nil {
                    let count = context.loadToMany(of: object, at: index).count
                    if let min = r.minCount, count < min {
                        failures.append(ValidationFailure(.relationshipLacksMinimumCount, object, property: r.name,
                                                          message: "\(label(r.name)) needs at least \(min) (has \(count))."))
                    }
                    if let max = r.maxCount, count > max {
                        failures.append(ValidationFailure(.relationshipExceedsMaximumCount, object, property: r.name,
                                                          message: "\(label(r.name)) allows at most \(max) (has \(count))."))
                    }
                }
            }
        }
        for failure in object.validate() {
            failures.append(ValidationFailure(code: failure.code, objectID: object.objectID,
                                              property: failure.property, message: failure.message))
        }
        return failures
    }

    /// Delete rule deny: the object may not be deleted while the relationship has destinations.
    static func validateDelete(_ object: ManagedObject, context: ManagedObjectContext) -> [ValidationFailure] {
        var failures: [ValidationFailure] = []
        for index in object.entity.relationshipIndices {
            guard let r = object.entity.relationshipDescription(at: index), r.deleteRule == .deny else { continue }
            let remaining = context.relatedObjects(of: object, at: index).filter { !$0.isDeletedFlag }
            if !remaining.isEmpty {
                failures.append(ValidationFailure(.relationshipDeniedDelete, object, property: r.name,
                    message: "\(object.entity.name) cannot be deleted while it has \(remaining.count) \(r.name)."))
            }
        }
        return failures
    }

    static func check(_ value: StoredValue, attribute a: AttributeDescription, object: ManagedObject) -> [ValidationFailure] {
        check(value, attribute: a, objectID: object.objectID)
    }

    /// The declared constraints of one attribute value (also for batch rows, which have no
    /// object).
    static func check(_ value: StoredValue, attribute a: AttributeDescription, objectID: ObjectID) -> [ValidationFailure] {
        var failures: [ValidationFailure] = []
        // The label is only built when a message is (validation runs for every saved object).
        var name: String { label(a.name) }
        func fail(_ code: ValidationFailure.Code, _ message: @autoclosure () -> String) {
            failures.append(ValidationFailure(code: code, objectID: objectID, property: a.name, message: message()))
        }
        for constraint in a.constraints {
            switch (constraint, value) {
            case (.required, .null):
                fail(.missingMandatoryProperty, "\(name) is required.")
            case (.required, .string(let s)) where isBlank(s):
                fail(.missingMandatoryProperty, "\(name) is required.")
            case (.required, .data(let d)) where d.isEmpty:
                fail(.missingMandatoryProperty, "\(name) is required.")
            case (.minimum(let min), _):
                if let n = number(value), n < min { fail(.numberTooSmall, "\(name) must be at least \(min).") }
            case (.maximum(let max), _):
                if let n = number(value), n > max { fail(.numberTooLarge, "\(name) must be at most \(max).") }
            case (.earliest(let d), .date(let v)) where v < d:
                fail(.dateTooSoon, "\(name) must not be before \(d.formatted(.iso8601)).")
            case (.latest(let d), .date(let v)) where v > d:
                fail(.dateTooLate, "\(name) must not be after \(d.formatted(.iso8601)).")
            // A character is at least one UTF-8 byte: a string of no more bytes than the limit
            // is within it, without counting its characters (grapheme breaking, per value).
            case (.minLength(let n), .string(let s)) where s.utf8.count < n || s.count < n:
                fail(.stringTooShort, "\(name) must have at least \(n) characters.")
            case (.maxLength(let n), .string(let s)) where s.utf8.count > n && s.count > n:
                fail(.stringTooLong, "\(name) must have at most \(n) characters (has \(s.count)).")
            case (.pattern(let pattern), .string(let s)):
                if !matches(s, pattern) { fail(.stringPatternMatching, "\(name) is not in the expected format.") }
            case (.singleLine, .string(let s)):
                if let found = ControlCharacters.first(in: s, allowingLineBreaks: false) {
                    fail(.stringControlCharacter,
                         "\(name) must be one line, without control characters (found \(ControlCharacters.name(found))).")
                }
            case (.multiLine, .string(let s)):
                if let found = ControlCharacters.first(in: s, allowingLineBreaks: true) {
                    fail(.stringControlCharacter,
                         "\(name) must not contain control characters other than tabs and line breaks (found \(ControlCharacters.name(found))).")
                }
            default:
                break
            }
        }
        return failures
    }

    /// Whether the string holds nothing but whitespace and line breaks: what trimming them
    /// (`trimmingCharacters(in: .whitespacesAndNewlines)`) would leave empty, found without
    /// making the trimmed copy. Most values fail the test on their first character.
    static func isBlank(_ s: String) -> Bool {
        for scalar in s.unicodeScalars {
            if scalar.isASCII {
                guard scalar == " " || (0x09...0x0D).contains(scalar.value) else { return false }
            } else if !CharacterSet.whitespacesAndNewlines.contains(scalar) {
                return false
            }
        }
        return true
    }

    static func number(_ value: StoredValue) -> Decimal? {
        switch value {
        case .int(let v): return Decimal(v)
        case .double(let v): return Decimal(v)
        case .decimal(let v): return v
        default: return nil
        }
    }

    /// Compiled patterns: compiling costs far more than matching, and batch inserts check
    /// the same pattern for every row.
    private static let compiledPatterns = Locked<[String: NSRegularExpression]>([:])

    static func matches(_ string: String, _ pattern: String) -> Bool {
        let cached = compiledPatterns.withLock { $0[pattern] }
        guard let regex = cached ?? (try? NSRegularExpression(pattern: "^(?:\(pattern))$")) else { return false }
        if cached == nil { compiledPatterns.withLock { $0[pattern] = regex } }
        let range = NSRange(string.startIndex..., in: string)
        return regex.firstMatch(in: string, range: range) != nil
    }

    /// "createdAt" → "Created at": property names in messages people read.
    static func label(_ name: String) -> String {
        var out = ""
        for (i, ch) in name.enumerated() {
            if i == 0 { out += ch.uppercased() }
            else if ch.isUppercase { out += " " + ch.lowercased() }
            else { out.append(ch) }
        }
        return out
    }
}
