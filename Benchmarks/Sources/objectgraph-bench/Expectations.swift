import Foundation

/// The digests the read steps must return, computed from the generated data.
/// Step 4 changes notes, so the expectations follow those changes.
struct Expectations {
    private(set) var invoices: [InvoiceData]
    private let invoicesByClient: [Int64: [Int]]  // client pk -> indexes in `invoices`
    private let dataset: Dataset

    init(_ dataset: Dataset) {
        self.dataset = dataset
        invoices = dataset.invoices
        invoicesByClient = Dictionary(grouping: dataset.invoices.indices, by: { dataset.invoices[$0].client })
    }

    mutating func setNotes(_ notes: String, ofInvoices ids: [Int64]) {
        for id in ids { invoices[Int(id - 1)].notes = notes }
    }

    var fetchAll: InvoiceDigest {
        invoices.reduce(into: InvoiceDigest()) { $0.add($1) }
    }

    var lookups: InvoiceDigest {
        dataset.lookupIDs.reduce(into: InvoiceDigest()) { $0.add(invoices[Int($1 - 1)]) }
    }

    var relationship: InvoiceDigest {
        var digest = InvoiceDigest()
        for clientID in dataset.relationshipClientIDs {
            digest.add(dataset.clients[Int(clientID - 1)])
            for index in invoicesByClient[clientID, default: []] { digest.add(invoices[index]) }
        }
        return digest
    }
}
