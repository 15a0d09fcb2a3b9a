import Foundation

/// What a read step returns: a summary built from every attribute of every object it read.
/// The harness compares it with the digest of the generated data, so an engine that skips
/// rows or attributes, or reads wrong values, fails instead of looking fast.
///
/// Every field is an exact integer sum, so the order rows come back in does not matter.
/// Building it costs the same in every engine.
struct Digest: Equatable, Sendable, Codable {
    var clients = 0
    var clientKeys: Int64 = 0
    var invoices = 0
    var invoiceKeys: Int64 = 0
    /// The invoices' client pks.
    var clientReferences: Int64 = 0
    /// UTF-8 bytes of every string attribute.
    var textBytes = 0
    /// Optional attributes that were nil.
    var nils = 0
    /// Amounts in hundredths (exact for the generated amounts).
    var hundredths: Int64 = 0
    /// Sum of (enumeration ordinal + 1) over enumeration attributes.
    var ordinals = 0
    /// Whole seconds since 1970 of every date (the generators make whole seconds).
    var seconds: Int64 = 0

    @inline(__always)
    mutating func addClient(pk: Int64) {
        clients += 1
        clientKeys &+= pk
    }

    @inline(__always)
    mutating func addInvoice(pk: Int64, client: Int64) {
        invoices += 1
        invoiceKeys &+= pk
        clientReferences &+= client
    }

    @inline(__always)
    mutating func add(_ text: String) { textBytes &+= text.utf8.count }

    @inline(__always)
    mutating func add(_ text: String?) {
        if let text { textBytes &+= text.utf8.count } else { nils += 1 }
    }

    @inline(__always)
    mutating func add(_ date: Date) { seconds &+= Int64(date.timeIntervalSince1970) }

    @inline(__always)
    mutating func add(amount: Double) { hundredths &+= Int64((amount * 100).rounded()) }

    /// Through Double: summing Decimals themselves costs ~0.3 µs an add, which would blur
    /// the ratios; exact for every amount below 2^53 hundredths.
    @inline(__always)
    mutating func add(amount: Decimal) { add(amount: (amount as NSDecimalNumber).doubleValue) }
}
