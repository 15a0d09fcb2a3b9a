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
        guard let trimmed = text?.trimmingWhitespace(), !trimmed.isEmpty else { return nil }
        return trimmed
    }

    /// `"1234.50"` → 1234.5. Digits with an optional point and an optional leading minus
    /// (so a negative amount reaches the model's "at least 0" rule); no grouping separators,
    /// no exponent, no currency sign; at most ``Money/maximumIntegerDigits`` digits before
    /// the point.
    public static func amount(_ text: String, property: String = "amount") -> Result<Decimal, FieldInputError> {
        let trimmed = text.trimmingWhitespace()
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
              let value = decimal(trimmed, digits: digitsBefore + digitsAfter, scale: digitsAfter) else { return failure() }
        guard significantBefore <= Money.maximumIntegerDigits else {
            return .failure(FieldInputError(property: property, message:
                "Amount \(EchoedInput.quoted(trimmed)) is too large: at most \(Money.maximumIntegerDigits) digits "
                + "before the decimal point (up to 999,999,999,999,999), so that totals stay exact."))
        }
        return .success(value)
    }

    private static let posix = Locale(identifier: "en_US_POSIX")

    /// The value of checked amount text: up to 18 digits read as an integer and a scale
    /// (the common case, exact and without a locale), more through Foundation's parser.
    private static func decimal(_ text: String, digits: Int, scale: Int) -> Decimal? {
        guard digits <= 18 else { return Decimal(string: text, locale: posix) }
        var significand: UInt64 = 0
        var negative = false
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "-"): negative = true
            case UInt8(ascii: "0")...UInt8(ascii: "9"): significand = significand * 10 + UInt64(byte - UInt8(ascii: "0"))
            default: continue
            }
        }
        return Decimal(sign: negative && significand != 0 ? .minus : .plus, exponent: -scale, significand: Decimal(significand))
    }

    /// `" eur "` → `"EUR"`: trimmed and upper-cased. Whether the code exists is the model's
    /// rule (``Invoice`` reports an unknown code), so any three letters pass here.
    public static func currencyCode(_ text: String, property: String = "currency") -> Result<String, FieldInputError> {
        let code = text.trimmingWhitespace().uppercased()
        guard !code.isEmpty else { return .failure(FieldInputError(property: property, message: "Currency is required.")) }
        return .success(code)
    }

    /// `"2025-03-14"` → that day. `label` names the field in the message ("Issue date").
    public static func day(_ text: String, property: String, label: String) -> Result<CalendarDay, FieldInputError> {
        let trimmed = text.trimmingWhitespace()
        if trimmed.isEmpty { return .failure(FieldInputError(property: property, message: "\(label) is required.")) }
        guard let day = CalendarDay(iso: trimmed) else {
            return .failure(FieldInputError(property: property,
                                            message: "\(label) \(EchoedInput.quoted(trimmed)) is not a date like 2025-03-14 (year-month-day)."))
        }
        return .success(day)
    }

    /// `"Sent"` → `.sent`, case-insensitively. "overdue" is refused with the reason.
    public static func status(_ text: String, property: String = "status") -> Result<InvoiceStatus, FieldInputError> {
        let trimmed = text.trimmingWhitespace().lowercased()
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
