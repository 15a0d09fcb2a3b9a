import ArgumentParser
import Foundation
import InvoicesApp
import WebServer

/// `invoices serve`: opens the database (filling an empty one with demo data) and serves
/// the dashboard.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the dashboard on an SQLite file or a PostgreSQL database.",
        discussion: """
            An empty database is filled with demo data (200 clients, 2,000 invoices) unless --no-demo-data. \
            Several servers may share one --store database (each with its own --name): what one saves \
            shows on the others.
            """)

    @OptionGroup var storeOptions: StoreOptions

    @Option(name: .long, help: ArgumentHelp("This server's name in the inspector, the logs and the history (default: HOST:PORT).",
                                            valueName: "NAME"))
    var name: String?

    @Option(name: .long, help: "The address to listen on.")
    var host = "127.0.0.1"

    @Option(name: .long, help: "The port to listen on (0: any free port).")
    var port = 8080

    @Option(name: .long, help: ArgumentHelp("When changes reach the disk: immediate, or deferred=SECONDS.",
                                            valueName: "immediate|deferred=SECONDS"))
    var persist = "immediate"

    @Option(name: .long, help: ArgumentHelp("How long a save waits for another process's lock on the file before it answers 503.",
                                            valueName: "SECONDS"))
    var busyTimeout: Double = 5

    @Flag(name: .long, help: "Do not fill an empty database with demo data.")
    var noDemoData = false

    @Option(name: .long, help: "Require this token to open the live inspector (/contexts).")
    var inspectorToken: String?

    @Option(name: .customLong("allowed-host"),
            help: ArgumentHelp("Also answer requests for this name (repeatable; .example.com allows every name under it). Loopback names and IP addresses are always answered; any other name gets 421, against DNS rebinding.",
                               valueName: "NAME"))
    var allowedHosts: [String] = []

    @Option(name: .customLong("trusted-proxy"),
            help: ArgumentHelp("The address of a reverse proxy whose X-Forwarded-For, -Proto and -Host headers are believed (repeatable).",
                               valueName: "ADDRESS"))
    var trustedProxies: [String] = []

    @Option(name: .long, help: ArgumentHelp("How invoice numbers are written, given when an invoice leaves draft: {yyyy} or {yy} the year, {seq} or {seq:5} the number within it.",
                                            valueName: "FORMAT"))
    var numberFormat = InvoiceNumberFormat.standard.description

    func validate() throws {
        guard (0...65_535).contains(port) else {
            throw ValidationError("--port must be between 0 and 65535 (got \(port)).")
        }
        guard !host.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw ValidationError("--host must not be empty (e.g. 127.0.0.1).")
        }
        guard PersistMode(argument: persist) != nil else {
            throw ValidationError("--persist must be immediate or deferred=SECONDS with SECONDS between 0 and 3600 (got \"\(persist)\"), e.g. --persist deferred=5.")
        }
        if let name, name.trimmingCharacters(in: .whitespaces).isEmpty || name.contains(where: \.isNewline) || name.count > 100 {
            throw ValidationError("--name must be a short name on one line, e.g. --name s1 (got \"\(name)\").")
        }
        for name in allowedHosts where name.isEmpty || name.contains(where: { $0 == "/" || $0 == ":" || $0.isWhitespace }) {
            throw ValidationError("--allowed-host takes a host name without scheme, port or path, e.g. --allowed-host invoices.example.com (got \"\(name)\").")
        }
        for address in trustedProxies where !HostPolicy.isAddress(address) {
            throw ValidationError("--trusted-proxy takes an IP address, e.g. --trusted-proxy 127.0.0.1 (got \"\(address)\").")
        }
        do { _ = try InvoiceNumberFormat(numberFormat) } catch { throw ValidationError("--number-format: \(error)") }
        guard busyTimeout.isFinite, (0...600).contains(busyTimeout) else {
            throw ValidationError("--busy-timeout must be between 0 and 600 seconds (got \(busyTimeout)).")
        }
    }

    func run() async throws {
        guard let mode = PersistMode(argument: persist), let format = try? InvoiceNumberFormat(numberFormat) else { throw ExitCode(64) }
        var configuration = ServerConfiguration(
            store: storeOptions.location, host: host, port: port, persist: mode, busyTimeout: busyTimeout,
            seedsDemoData: !noDemoData, inspectorToken: inspectorToken, allowedHosts: allowedHosts,
            trustedProxies: trustedProxies)
        configuration.numbering = InvoiceNumbering(format: format)
        configuration.name = name
        do {
            // Unbuffered, so "Serving http://…" shows at once even when stdout is a pipe.
            try await Server.run(configuration) { line in
                FileHandle.standardOutput.write(Data((line + "\n").utf8))
            }
        } catch {
            Terminal.error(error.description)
            throw ExitCode.failure
        }
    }
}
