import Foundation
import ObjectGraph

/// One line of an invoice: what was sold, how many, at what price, with which tax.
///
/// Rules checked at save: a description (one line), a quantity of more than zero, a unit
/// price of at least zero, a tax rate from 0 to 100 percent, and an invoice. Its net and tax
/// are each rounded to the currency's minor units, half away from zero (``net``, ``tax``):
/// an invoice's total is the sum of its rounded lines, so what is printed adds up.
public final class LineItem: ManagedObject {
    /// Every change is kept with its old and new values: the object's history page reads them.
    override public class var recordsValuesInHistory: Bool { true }

    /// What the line is for ("Consulting, March"). Named so as not to hide `description`.
    @Attribute(.required, .singleLine, .maxLength(200)) public var itemDescription: String
    /// At most 999,999,999 with up to 4 decimals (checked at save), so net stays exact.
    @Attribute(.minimum(0), .maximum(LineItem.largestQuantity)) public var quantity: Decimal = 1
    @Attribute(.minimum(0), .maximum(Money.largestAmount)) public var unitPrice: Decimal = 0
    /// In percent: 19 for 19 %.
    @Attribute(.minimum(0), .maximum(100)) public var taxRate: Decimal = 0
    /// The line's place on its invoice, from 0 (``Invoice/currentLines`` sorts by it).
    @Attribute(.minimum(0)) public var position: Int = 0
    @Relationship(isRequired: true) public var invoice: Invoice?

    /// The largest quantity a line may have.
    public static let largestQuantity: Decimal = 999_999_999
    /// The most decimals a quantity, a unit price or a tax rate may have (net and tax are
    /// rounded to the currency's minor units, so a unit price may have more: 0.333 EUR).
    public static let maximumDecimals = 4

    /// Quantity × unit price, rounded to the invoice currency's minor units.
    public var net: Decimal { LineItem.net(quantity: quantity, unitPrice: unitPrice, currency: invoice?.currency) }

    /// Net × tax rate / 100, rounded to the invoice currency's minor units.
    public var tax: Decimal { LineItem.tax(net: net, rate: taxRate, currency: invoice?.currency) }

    /// Net and tax.
    public var total: Decimal {
        let amounts = self.amounts
        return amounts.net + amounts.tax
    }

    /// Net and tax, the net rounded once.
    public var amounts: (net: Decimal, tax: Decimal) {
        let currency = invoice?.currency
        let net = LineItem.net(quantity: quantity, unitPrice: unitPrice, currency: currency)
        return (net, LineItem.tax(net: net, rate: taxRate, currency: currency))
    }

    /// The rule for a line's net: rounded half away from zero to the currency's minor units
    /// (not rounded for a currency that has none or that is not known).
    public static func net(quantity: Decimal, unitPrice: Decimal, currency: String?) -> Decimal {
        rounded(quantity * unitPrice, in: currency)
    }

    /// The rule for a line's tax, from its rounded net.
    public static func tax(net: Decimal, rate: Decimal, currency: String?) -> Decimal {
        // A hundredth by the exponent: exact, and far cheaper than Decimal's division.
        let product = net * rate
        return rounded(Decimal(sign: product.sign, exponent: -2, significand: product.magnitude), in: currency)
    }

    private static func rounded(_ amount: Decimal, in code: String?) -> Decimal {
        guard let currency = code.flatMap(Currency.named), currency.minorUnits != nil else { return amount }
        return currency.rounded(amount)
    }

    public override func validate() -> [ValidationFailure] {
        var failures: [ValidationFailure] = []
        if quantity <= 0 {
            failures.append(ValidationFailure(property: "quantity", message: "must be more than zero."))
        } else if quantity.decimalPlaces > Self.maximumDecimals {
            failures.append(ValidationFailure(
                property: "quantity", message: "may have at most \(Self.maximumDecimals) decimal places."))
        }
        if taxRate.decimalPlaces > Self.maximumDecimals {
            failures.append(ValidationFailure(
                property: "taxRate", message: "may have at most \(Self.maximumDecimals) decimal places."))
        }
        if unitPrice.decimalPlaces > Self.maximumDecimals {
            failures.append(ValidationFailure(
                property: "unitPrice", message: "may have at most \(Self.maximumDecimals) decimal places."))
        }
        return failures
    }
}
