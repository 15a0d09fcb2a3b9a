import ArgumentParser
import InvoicesApp

/// `invoices`: the root command.
struct InvoicesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "invoices",
        abstract: "Clients and invoices in the browser, on an SQLite database.",
        discussion: """
            Exit status: 0 on success; 1 when the command failed (nothing or not everything \
            could be done, see the message); 2 when `import` skipped rows (the valid rows were \
            imported); 64 for unusable arguments.
            """,
        version: InvoicesApp.version,
        subcommands: [ServeCommand.self, ImportCommand.self])
}
