import Foundation

/// A line's own values, as generated (demo data) or migrated: written to a ``LineItem`` by
/// ``Invoice/replaceLines(with:)``.
public struct LineFields: Sendable, Hashable {
    public var description: String
    public var quantity: Decimal
    public var unitPrice: Decimal
    /// Percent.
    public var taxRate: Decimal

    public init(description: String, quantity: Decimal = 1, unitPrice: Decimal, taxRate: Decimal = 0) {
        self.description = description
        self.quantity = quantity
        self.unitPrice = unitPrice
        self.taxRate = taxRate
    }

    /// Net and tax, each rounded as ``LineItem`` rounds them, in `currency`.
    public func total(in currency: String) -> Decimal {
        let net = LineItem.net(quantity: quantity, unitPrice: unitPrice, currency: currency)
        return net + LineItem.tax(net: net, rate: taxRate, currency: currency)
    }
}

extension Invoice {
    /// Replaces the lines with `lines`, in that order, and brings the amount in step.
    /// Does nothing to an object outside a context.
    public func replaceLines(with lines: [LineFields]) {
        guard let context = managedObjectContext else { return }
        for line in self.lines { context.delete(line) }
        for (position, fields) in lines.enumerated() {
            let line = LineItem(context: context)
            line.itemDescription = fields.description
            line.quantity = fields.quantity
            line.unitPrice = fields.unitPrice
            line.taxRate = fields.taxRate
            line.position = position
            line.invoice = self
        }
        settleLines()
    }
}
