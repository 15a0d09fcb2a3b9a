import Foundation

/// Why a text a person typed (in a form or a CSV cell) cannot become a field's value.
/// `property` names the attribute, so a page can put the message beside its field.
public struct FieldInputError: Error, Sendable, Hashable, CustomStringConvertible {
    public let property: String
    public let message: String

    public init(property: String, message: String) {
        self.property = property
        self.message = message
    }

    public var description: String { message }
}

/// Turns typed text into attribute values, with messages people can act on. Range rules
/// (amount at least 0, decimals, due after issue) are the model's: these functions only
/// check that the text is a value of the right kind.
public enum FieldInput {
    /// Trimmed text; nil when blank.
    public static func optionalText(_ text: String?) -> String? {
        guard let text, let first = text.unicodeScalars.first, let last = text.unicodeScalars.last else { return nil }
        // Most cells have nothing to trim: Foundation's trimming is not needed for them (an
        // import reads a dozen cells a row).
        if !first.properties.isWhitespace, !last.properties.isWhitespace { return text }
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return trimmed.isEmpty ? nil : trimmed
    }

    /// `"1234.50"` → 1234.5. Digits with an optional point and an optional leading minus
    /// (so a negative amount reaches the model's "at least 0" rule); no grouping separators,
    /// no exponent, no currency sign; at most ``Money/maximumIntegerDigits`` digits before
    /// the point.
    public static func amount(_ text: String, property: String = "amount") -> Result<Decimal, FieldInputError> {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        func failure() -> Result<Decimal, FieldInputError> {
            .failure(FieldInputError(property: property, message: trimmed.isEmpty
                ? "Amount is required."
                : "Amount \(EchoedInput.quoted(trimmed)) is not a number like 1234.50 (a dot for decimals, no thousands separators)."))
        }
        var digitsBefore = 0, significantBefore = 0, digitsAfter = 0, seenPoint = false
        for (i, byte) in trimmed.utf8.enumerated() {
            switch byte {
            case UInt8(ascii: "-") where i == 0: continue
            case UInt8(ascii: "."):
                if seenPoint { return failure() }
                seenPoint = true
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                if seenPoint {
                    digitsAfter += 1
                } else {
                    digitsBefore += 1
                    if significantBefore > 0 || byte != UInt8(ascii: "0") { significantBefore += 1 }
                }
            default:
                return failure()
            }
        }
        guard digitsBefore > 0, !seenPoint || digitsAfter > 0, digitsBefore + digitsAfter <= 34,
              let value = Decimal(string: trimmed, locale: Locale(identifier: "en_US_POSIX")) else { return failure() }
        guard significantBefore <= Money.maximumIntegerDigits else {
            return .failure(FieldInputError(property: property, message:
                "Amount \(EchoedInput.quoted(trimmed)) is too large: at most \(Money.maximumIntegerDigits) digits "
                + "before the decimal point (up to 999,999,999,999,999), so that totals stay exact."))
        }
        return .success(value)
    }

    /// `" eur "` → `"EUR"`: trimmed and upper-cased. Whether the code exists is the model's
    /// rule (``Invoice`` reports an unknown code), so any three letters pass here.
    public static func currencyCode(_ text: String, property: String = "currency") -> Result<String, FieldInputError> {
        let code = text.trimmingCharacters(in: .whitespacesAndNewlines).uppercased()
        guard !code.isEmpty else { return .failure(FieldInputError(property: property, message: "Currency is required.")) }
        return .success(code)
    }

    /// `"2025-03-14"` → that day. `label` names the field in the message ("Issue date").
    public static func day(_ text: String, property: String, label: String) -> Result<CalendarDay, FieldInputError> {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.isEmpty { return .failure(FieldInputError(property: property, message: "\(label) is required.")) }
        guard let day = CalendarDay(iso: trimmed) else {
            return .failure(FieldInputError(property: property,
                                            message: "\(label) \(EchoedInput.quoted(trimmed)) is not a date like 2025-03-14 (year-month-day)."))
        }
        return .success(day)
    }

    /// `"Sent"` → `.sent`, case-insensitively. "overdue" is refused with the reason.
    public static func status(_ text: String, property: String = "status") -> Result<InvoiceStatus, FieldInputError> {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        if let status = InvoiceStatus(rawValue: trimmed) { return .success(status) }
        let allowed = InvoiceStatus.allCases.map(\.rawValue).joined(separator: ", ")
        if trimmed == "overdue" {
            return .failure(FieldInputError(property: property, message:
                "Status \"overdue\" is not stored: an invoice is overdue when it is sent and past its due date. Use sent."))
        }
        return .failure(FieldInputError(property: property,
                                        message: "Status \(EchoedInput.quoted(trimmed)) is not one of \(allowed)."))
    }
}
