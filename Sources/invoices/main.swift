// The `invoices` command line: `serve`, `import`, `--help` (see InvoicesCommand.swift).
//
// Parsed and run here rather than by `await InvoicesCommand.main()`: from top-level code that
// call resolves to ArgumentParser's synchronous `main()`, which runs the subcommands'
// synchronous `run()` (printing help) instead of their `async` one.
import ArgumentParser

/// Runs the `async` `run()` of a parsed subcommand (generic, so the call cannot resolve to
/// `ParsableCommand.run()`).
func runAsync<Command: AsyncParsableCommand>(_ command: Command) async throws {
    var command = command
    try await command.run()
}

do {
    let command = try InvoicesCommand.parseAsRoot()
    if let asyncCommand = command as? any AsyncParsableCommand {
        try await runAsync(asyncCommand)
    } else {
        var command = command
        try command.run()
    }
} catch {
    InvoicesCommand.exit(withError: error)
}
