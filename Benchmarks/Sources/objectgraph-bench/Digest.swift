import Foundation

/// What a read step returns: a summary built from every attribute of every
/// object it read. The harness compares it with the digest of the data it
/// generated, so an implementation that skips rows or attributes, or reads
/// wrong values, fails instead of looking fast.
///
/// Every field is an exact integer sum, so the order in which rows come back
/// does not matter. Building it costs about the same in every column.
struct InvoiceDigest: Equatable, Sendable, Codable {
    var clients = 0
    var clientPKTotal: Int64 = 0
    var clientTextBytes = 0
    var invoices = 0
    var pkTotal: Int64 = 0
    var clientRefTotal: Int64 = 0
    var identifierBytes = 0
    /// Amounts in hundredths. Computed through Double because summing Decimal
    /// itself costs ~0.3 µs an add (30 ms per step 2), which would blur the
    /// ratios; exact for every amount below 2^53 hundredths.
    var amountHundredths: Int64 = 0
    /// Per-currency and per-status counts (index = `ordinal`).
    var currencyCounts: [Int] = [0, 0, 0]
    var statusCounts: [Int] = [0, 0, 0, 0]
    /// Whole seconds since 1970 (the generator only makes whole seconds).
    var issueSeconds: Int64 = 0
    var dueSeconds: Int64 = 0
    var notesCount = 0
    var notesBytes = 0

    /// Adds one invoice, given as its attributes so an implementation whose
    /// objects are not `InvoiceData` (ObjectGraph's managed objects) can call
    /// it without copying into a struct first.
    @inline(__always)
    mutating func addInvoice(
        pk: Int64, identifier: String, amount: Decimal, currency: Currency,
        status: InvoiceStatus, issueDate: Date, dueDate: Date, notes: String?, client: Int64
    ) {
        invoices += 1
        pkTotal &+= pk
        clientRefTotal &+= client
        identifierBytes &+= identifier.utf8.count
        amountHundredths &+= Int64(((amount as NSDecimalNumber).doubleValue * 100).rounded())
        currencyCounts[currency.ordinal] += 1
        statusCounts[status.ordinal] += 1
        issueSeconds &+= Int64(issueDate.timeIntervalSince1970)
        dueSeconds &+= Int64(dueDate.timeIntervalSince1970)
        if let notes {
            notesCount += 1
            notesBytes &+= notes.utf8.count
        }
    }

    mutating func add(_ invoice: InvoiceData) {
        addInvoice(
            pk: invoice.pk, identifier: invoice.identifier, amount: invoice.amount,
            currency: invoice.currency, status: invoice.status, issueDate: invoice.issueDate,
            dueDate: invoice.dueDate, notes: invoice.notes, client: invoice.client)
    }

    /// Adds one client (step 5 fetches the client before following its
    /// relationship). Only the pk and the text lengths: enough to prove the
    /// client was loaded.
    @inline(__always)
    mutating func addClient(pk: Int64, name: String, email: String?, city: String?, country: String?) {
        clients += 1
        clientPKTotal &+= pk
        clientTextBytes &+= name.utf8.count + (email?.utf8.count ?? 0)
            + (city?.utf8.count ?? 0) + (country?.utf8.count ?? 0)
    }

    mutating func add(_ client: ClientData) {
        addClient(pk: client.pk, name: client.name, email: client.email, city: client.city, country: client.country)
    }
}
