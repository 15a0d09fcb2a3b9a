import Foundation
import Logging
import ObjectGraph

/// Imports a file of clients alone (what `/clients.csv` writes): each row becomes a client,
/// unless one with its email (or, without an email, its name) is already there. Rows are
/// saved in batches; a row the model refuses is reported and skipped.
struct ClientImport {
    let batchSize: Int
    let logger: Logger

    func run(_ file: ImportFile, into context: ManagedObjectContext, report: ImportReport,
             progress: (@Sendable (ImportProgress) -> Void)?,
             didSaveBatch: (@Sendable (SavedChanges) async -> Void)?) async throws(ImportError) -> ImportReport {
        var report = report
        report.isClientFile = true
        var directory = try await ClientDirectory.load(from: context, logger: logger)
        var records = try file.records()
        var handled = 0
        while let pieces = try records.next() {
            var rows: [(line: Int, name: String?, details: ClientDetails)] = []
            for record in pieces {
                switch record {
                case .malformed(let syntax):
                    report.skipped.append(.init(line: syntax.line, reasons: [ImportFile.sentence(syntax.reason)]))
                case .record(let record):
                    var reader = InvoiceCSVCellReader(record: record, header: file.header)
                    guard record.fields.count == file.header.fieldCount, let client = reader.client(), reader.reasons.isEmpty else {
                        report.skipped.append(.init(line: record.line, reasons: reader.reasons.isEmpty
                            ? ["The row has \(record.fields.count) fields, the header \(file.header.fieldCount)."] : reader.reasons))
                        continue
                    }
                    rows.append((record.line, client.name, client.details))
                }
            }
            handled += pieces.count
            var start = 0
            while start < rows.count {
                let batch = Array(rows[start..<min(rows.count, start + batchSize)])
                start += batch.count
                let outcome = try await save(batch, into: context, directory: directory, importedBefore: report.createdClients.count)
                directory = outcome.directory
                report.matchedClients += outcome.matched
                report.createdClients += outcome.created
                report.skipped += outcome.skipped
                if !outcome.changes.isEmpty { await didSaveBatch?(outcome.changes) }
            }
            progress?(ImportProgress(processedRows: handled, totalRows: report.totalRows, importedInvoices: 0))
        }
        report.skipped.sort { $0.line < $1.line }
        return report
    }

    private struct Outcome: Sendable {
        var directory: ClientDirectory
        var matched = 0
        var created: [String] = []
        var skipped: [ImportReport.SkippedRow] = []
        var changes = SavedChanges()
    }

    /// One batch in one block: the clients not yet there are made, checked and saved.
    private func save(_ batch: [(line: Int, name: String?, details: ClientDetails)], into context: ManagedObjectContext,
                      directory: ClientDirectory, importedBefore: Int) async throws(ImportError) -> Outcome {
        let logger = logger
        do {
            return try await context.perform { () throws -> Outcome in
                var outcome = Outcome(directory: directory)
                var made: [Client] = []
                // This batch's new clients by ID: a name match is confirmed without a search.
                var madeNames: [ObjectID: String] = [:]
                try outcome.directory.lookUpEmails(Set(batch.compactMap(\.details.email)), in: context)
                for row in batch {
                    // Already there: by its email, or by its name when it has none.
                    let match = outcome.directory.match(email: row.details.email, name: row.details.email == nil ? row.name : nil) { id in
                        madeNames[id] ?? (try? context.existingObject(with: id, as: Client.self))?.name
                    }
                    guard case .none = match else {
                        outcome.matched += 1
                        continue
                    }
                    guard let name = row.name else {
                        outcome.skipped.append(.init(line: row.line, reasons: ["No client has this email; add client_name to create one."]))
                        continue
                    }
                    let client = Client(context: context)
                    client.assign(name: name, details: row.details)
                    if case let failures = client.validate(), !failures.isEmpty {
                        context.delete(client)
                        outcome.skipped.append(.init(line: row.line, reasons: failures.map(\.message)))
                        continue
                    }
                    outcome.directory.add(client.objectID, name: name, email: client.email)
                    made.append(client)
                    madeNames[client.objectID] = client.name
                }
                let temporary = made.map(\.objectID)
                try context.save()
                outcome.directory.replace(Dictionary(uniqueKeysWithValues: zip(temporary, made.map(\.objectID))))
                outcome.created = made.map(\.name)
                outcome.changes.inserted = Set(made.map(\.objectID))
                return outcome
            }
        } catch {
            throw .store(error, importedBefore: importedBefore, logger: logger)
        }
    }
}
