import ArgumentParser
import Foundation
import InvoicesApp

/// `invoices import FILE.csv --db PATH` (or `--store URL`): imports invoices in this process,
/// with its own coordinator on the database; a running server sees them through the history.
struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import invoices (and their clients) from a CSV file.",
        discussion: """
            The first line names the columns, in any order: \(InvoiceCSVColumn.exampleHeader). \
            Required: currency, issue_date, client_name or client_email, and amount (one row per \
            invoice) or record (one row per line item or payment, as /invoices.csv writes). \
            A file of client_* columns alone (/clients.csv) imports clients. \
            Rows are matched to clients by email, then by name; others create a client. \
            Invalid rows are reported with their line numbers and skipped; the others are imported.

            Exit status: 0 when every row was imported, 2 when some rows were skipped (the \
            others were imported), 1 when the file or the database could not be used.
            """)

    @Argument(help: "The CSV file (UTF-8, with or without BOM).")
    var file: String

    @OptionGroup var storeOptions: StoreOptions

    @Option(name: .long, help: "Rows saved per batch.")
    var batchSize = 1_000

    @Flag(name: .long, help: "Do not print progress.")
    var quiet = false

    @Option(name: .long, help: ArgumentHelp("How the numbers of rows that are not drafts and have none are written (as for serve).",
                                            valueName: "FORMAT"))
    var numberFormat = InvoiceNumberFormat.standard.description

    func validate() throws {
        guard batchSize > 0 else { throw ValidationError("--batch-size must be at least 1 (got \(batchSize)).") }
        do { _ = try InvoiceNumberFormat(numberFormat) } catch { throw ValidationError("--number-format: \(error)") }
    }

    func run() async throws {
        let stack: InvoicesStack
        do {
            stack = try InvoicesStack.open(storeOptions.location)
        } catch {
            Terminal.error(error.description)
            throw ExitCode.failure
        }
        // Checked in validate().
        if let format = try? InvoiceNumberFormat(numberFormat) { stack.numbering = InvoiceNumbering(format: format) }
        let quiet = self.quiet
        let report: ImportReport
        do {
            let author = "invoices import (pid \(ProcessInfo.processInfo.processIdentifier))"
            report = try await stack.importCSV(contentsOf: URL(fileURLWithPath: file), batchSize: batchSize,
                                               author: author) { progress in
                if !quiet {
                    Terminal.note("\(progress.processedRows)/\(progress.totalRows) rows (\(Int(progress.fraction * 100))%)")
                }
            }
        } catch {
            Terminal.error(error.description)
            throw ExitCode.failure
        }
        for line in report.lines { print(line) }
        // The saved batches are in the file's WAL, which a process that exits without closing
        // the store leaves behind: copied into the database file here, the file alone is
        // whole (a copy or a backup of it misses nothing). A failure loses nothing (the WAL
        // keeps the batches, and the next open reads them), so it is said, not fatal.
        do {
            try stack.coordinator.checkpoint()
        } catch {
            Terminal.error("The import is saved, but copying it from the WAL into the database file failed (the next open reads it from there): \(error)")
        }
        if !report.isComplete { throw ExitCode(2) }
    }
}
