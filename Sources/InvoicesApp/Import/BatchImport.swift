import Foundation
import Logging
import ObjectGraph

/// One batch of an import, inside one block of the import context: makes the objects of the
/// rows, checks them with the model's rules, saves, and gives back values only.
///
/// A row is all or nothing: when its invoice or the client it created fails validation,
/// both are removed before the save, and the row is reported. Rules only the save checks
/// (required values, lengths, uniqueness against rows another process inserted meanwhile)
/// are handled by removing the rows the save names and saving again.
struct BatchImport {
    let context: ManagedObjectContext
    /// Where a store failure is logged whole (the report gets it in words).
    let logger: Logger
    /// Numbers the rows that left draft without one, in the batch's save.
    let numbering: InvoiceNumbering
    var state: BatchState
    private var outcome: BatchOutcome

    /// The accepted rows, by line.
    private var accepted: [Int: Accepted] = [:]

    private struct Accepted {
        let row: ImportedInvoice
        let invoice: Invoice
        let client: Client
        let origin: ClientOrigin
    }

    private enum ClientOrigin {
        /// In the store before the import began.
        case existing
        /// Created by an earlier batch of this import.
        case createdEarlier
        /// Created by this batch (removed again if all its rows are withdrawn).
        case createdInBatch
    }

    init(context: ManagedObjectContext, state: BatchState, numbering: InvoiceNumbering, logger: Logger) {
        self.context = context
        self.numbering = numbering
        self.logger = logger
        self.state = state
        self.outcome = BatchOutcome(state: state)
    }

    mutating func run(_ rows: [ImportedInvoice], importedBefore: Int) throws(ImportError) -> BatchOutcome {
        let existing: Set<String>
        do { existing = try existingIdentifiers(rows.compactMap(\.identifier)) } catch {
            throw .store(error, importedBefore: importedBefore, logger: logger)
        }
        do {
            try state.directory.lookUpEmails(Set(rows.compactMap(\.client.email)), in: context)
        } catch {
            throw .store(error, importedBefore: importedBefore, logger: logger)
        }
        for row in rows { add(row, existing: existing) }
        try save(importedBefore: importedBefore)

        var permanent: [ObjectID: ObjectID] = [:]
        for item in accepted.values.sorted(by: { $0.row.line < $1.row.line }) {
            outcome.changes.inserted.insert(item.invoice.objectID)
            outcome.changes.inserted.formUnion(item.invoice.lines.map(\.objectID))
            outcome.changes.inserted.formUnion(item.invoice.payments.map(\.objectID))
            switch item.origin {
            case .existing:
                outcome.matchedClients.insert(item.client.objectID)
            case .createdEarlier:
                outcome.changes.updated.insert(item.client.objectID)
            case .createdInBatch:
                if !outcome.changes.inserted.contains(item.client.objectID) {
                    outcome.changes.inserted.insert(item.client.objectID)
                    outcome.createdClients.append(item.client.name)
                    state.createdClientIDs.insert(item.client.objectID)
                }
            }
        }
        for (old, client) in createdClients { permanent[old] = client.objectID }
        state.directory.replace(permanent)
        outcome.imported = accepted.count
        outcome.state = state
        return outcome
    }

    /// The identifiers of this batch's accepted rows, with their line. Earlier batches' are
    /// in the store, where ``existingIdentifiers(_:)`` finds them: memory holds one batch's.
    private var identifiers: [String: Int] = [:]

    /// Clients created in this batch, by the temporary ID the directory knows them by.
    private var createdClients: [ObjectID: Client] = [:]

    // MARK: Rows

    private mutating func add(_ row: ImportedInvoice, existing: Set<String>) {
        if let identifier = row.identifier, existing.contains(identifier) {
            return skip(row.line, "An invoice with identifier \(EchoedInput.plain(identifier)) already exists.")
        }
        if let identifier = row.identifier, let line = identifiers[identifier] {
            return skip(row.line, "Identifier \(EchoedInput.plain(identifier)) is already used on line \(line).")
        }
        let client: Client
        var origin = ClientOrigin.existing
        let match = state.directory.match(email: row.client.email, name: row.client.name) { id in
            // A client deleted meanwhile is no match: the row makes a new one.
            createdClients[id]?.name ?? (try? context.existingObject(with: id, as: Client.self))?.name
        }
        switch match {
        case .existing(let id):
            if let new = createdClients[id] {
                client = new
                origin = .createdInBatch
            } else {
                guard let found = try? context.existingObject(with: id, as: Client.self) else {
                    return skip(row.line, "Its client was deleted while the import ran; import the row again.")
                }
                client = found
                if state.createdClientIDs.contains(id) { origin = .createdEarlier }
            }
        case .ambiguous(let count):
            return skip(row.line, "Client name \(EchoedInput.quoted(row.client.name ?? "")) matches \(count) clients; add client_email to choose one.")
        case .none:
            guard let name = row.client.name else {
                return skip(row.line, "No client has the email \(EchoedInput.plain(row.client.email ?? "")); add client_name to create one.")
            }
            client = Client(context: context)
            client.assign(name: name, details: row.client.details)
            origin = .createdInBatch
        }
        let invoice = Invoice(context: context)
        invoice.client = client
        invoice.assign(row.invoice, lines: row.lines)
        invoice.addPayments(row.payments)

        let isNewClient = origin == .createdInBatch && createdClients[client.objectID] == nil
        // A row that left draft without a number is numbered when the batch saves.
        let rules = invoice.validate().filter { !($0.property == "identifier" && invoice.identifier == nil) }
        let failures = Self.totalFailures(row, invoice) + rules + invoice.currentLines.flatMap { $0.validate() }
            + invoice.payments.flatMap { $0.validate().map { ValidationFailure(property: $0.property, message: "Payment: " + $0.message) } }
            + (isNewClient ? client.validate() : [])
        if !failures.isEmpty {
            context.delete(invoice)
            if isNewClient { context.delete(client) }
            return skip(row.line, failures.map(\.message))
        }
        if isNewClient {
            createdClients[client.objectID] = client
            state.directory.add(client.objectID, name: client.name, email: client.email)
        }
        if let identifier = row.identifier { identifiers[identifier] = row.line }
        accepted[row.line] = Accepted(row: row, invoice: invoice, client: client, origin: origin)
    }

    /// The file's total must be the invoice's: a one-amount row's amount must fit the
    /// currency as it is (its line would round it); a total given beside lines must be theirs.
    private static func totalFailures(_ row: ImportedInvoice, _ invoice: Invoice) -> [ValidationFailure] {
        guard let lines = row.lines else {
            return Invoice.precisionMessage(of: row.invoice.amount, in: row.invoice.currency)
                .map { [ValidationFailure(property: "amount", message: $0)] } ?? []
        }
        guard row.hasAmount, !lines.isEmpty, invoice.amount != row.invoice.amount else { return [] }
        return [ValidationFailure(property: "amount", message:
            "Amount \(row.invoice.amount) is not the total of the invoice's lines (\(invoice.money.plainAmount)): correct it, or leave it blank.")]
    }

    /// The invoice's own reasons first, then its client's, lines' and payments': the save
    /// lists failures in no particular order.
    private static func ordered(_ reasons: [String]) -> [String] {
        let prefixes = ["Client: ", "Line: ", "Payment: "]
        func rank(_ reason: String) -> Int { (prefixes.firstIndex { reason.hasPrefix($0) } ?? -1) + 1 }
        return reasons.enumerated().sorted { (rank($0.element), $0.offset) < (rank($1.element), $1.offset) }.map(\.element)
    }

    private mutating func skip(_ line: Int, _ reasons: String...) { skip(line, reasons) }

    private mutating func skip(_ line: Int, _ reasons: [String]) {
        outcome.skipped.append(.init(line: line, reasons: reasons))
    }

    /// Removes an accepted row's objects (and its new client when no other row uses it).
    private mutating func withdraw(_ line: Int, reasons: [String]) {
        guard let item = accepted.removeValue(forKey: line) else { return }
        context.delete(item.invoice)
        if let identifier = item.row.identifier { identifiers[identifier] = nil }
        if item.origin == .createdInBatch && !accepted.values.contains(where: { $0.client === item.client }) {
            state.directory.remove(item.client.objectID, name: item.client.name, email: item.client.email)
            createdClients[item.client.objectID] = nil
            context.delete(item.client)
        }
        skip(line, reasons)
    }

    // MARK: Store

    private func existingIdentifiers(_ identifiers: [String]) throws -> Set<String> {
        let request = FetchRequest<Invoice>(predicate: #Predicate { invoice in
            invoice.identifier.flatMap { identifiers.contains($0) } == true
        })
        return Set(try context.fetch(request).filter { !$0.isInserted }.compactMap(\.identifier))
    }

    /// Saves, withdrawing the rows a failed save names, until it succeeds or fails for a
    /// reason no row explains.
    private mutating func save(importedBefore: Int) throws(ImportError) {
        var assignment = NumberAssignment()
        var renumberings = 0
        while true {
            do {
                assignment = try numbering.assignNumbers(in: context)
                try context.save()
                return
            } catch SaveError.mergeConflict(let conflicts)
                        where assignment.explains(conflicts) && renumberings < InvoicesStack.numberingAttempts {
                // A server numbered invoices of the same year meanwhile: number again.
                renumberings += 1
            } catch SaveError.uniquenessViolation(let violation)
                        where assignment.explains(violation) && renumberings < InvoicesStack.numberingAttempts {
                renumberings += 1
            } catch SaveError.validationFailed(let failures) {
                var reasonsByLine: [Int: [String]] = [:]
                for failure in failures {
                    for item in accepted.values where item.invoice.objectID == failure.objectID
                        || item.invoice.lines.contains(where: { $0.objectID == failure.objectID })
                        || item.invoice.payments.contains(where: { $0.objectID == failure.objectID })
                        || (item.origin == .createdInBatch && item.client.objectID == failure.objectID) {
                        let prefix = item.invoice.objectID == failure.objectID ? ""
                            : item.client.objectID == failure.objectID ? "Client: "
                            : item.invoice.payments.contains(where: { $0.objectID == failure.objectID }) ? "Payment: " : "Line: "
                        reasonsByLine[item.row.line, default: []].append(prefix + failure.message)
                    }
                }
                guard !reasonsByLine.isEmpty else {
                    throw .store(SaveError.validationFailed(failures), importedBefore: importedBefore, logger: logger)
                }
                for (line, reasons) in reasonsByLine { withdraw(line, reasons: Self.ordered(reasons)) }
            } catch SaveError.uniquenessViolation(let violation) {
                // Another process inserted the same identifier or email since the batch began.
                let clashing = clashingLines(entity: violation.entity, properties: violation.properties)
                guard !clashing.isEmpty else {
                    throw .store(SaveError.uniquenessViolation(violation), importedBefore: importedBefore, logger: logger)
                }
                for (line, reason) in clashing { withdraw(line, reasons: [reason]) }
            } catch {
                assignment.revert(in: context)
                throw .store(error, importedBefore: importedBefore, logger: logger)
            }
            assignment.revert(in: context)
        }
    }

    /// The accepted rows whose identifier or new client's email the store now has.
    private func clashingLines(entity: String, properties: [String]) -> [(Int, String)] {
        var result: [(Int, String)] = []
        if entity == "Invoice" {
            let identifiers = accepted.values.compactMap(\.row.identifier)
            let taken = (try? existingIdentifiers(identifiers)) ?? []
            for item in accepted.values {
                guard let identifier = item.row.identifier, taken.contains(identifier) else { continue }
                result.append((item.row.line, "An invoice with identifier \(EchoedInput.plain(identifier)) already exists."))
            }
        } else if entity == "Client" {
            let emails = accepted.values.filter { $0.origin == .createdInBatch }.compactMap(\.client.email)
            let request = FetchRequest<Client>(predicate: #Predicate { client in
                client.email.flatMap { emails.contains($0) } == true
            })
            let taken = Set(((try? context.fetch(request)) ?? []).filter { !$0.isInserted }.compactMap(\.email))
            for item in accepted.values where item.origin == .createdInBatch && item.client.email.map(taken.contains) == true {
                result.append((item.row.line,
                               "Another client already has the email \(EchoedInput.plain(item.client.email ?? "")); import the row again to attach it to that client."))
            }
        }
        return result
    }
}
