import Foundation

/// Command-line options, parsed by hand: the package takes no dependency beyond what it measures.
struct Options: Sendable {
    var rounds = 5
    var sizes = Sizes.standard
    var models = ["seed002", "dashboard"]
    var measureMemory = true
    var warmUp = true
    var verbose = false
    var jsonPath: String?
    /// `postgresql`: ObjectGraph's PostgreSQL store against raw libpq, on a server of the run's own.
    var store = StoreKind.sqlite
    var postgreSQLPort = 18_410
    /// The libpq peer's insert: one `COPY` per table (false), or prepared INSERTs per row.
    var libpqInsertsRows = false

    enum StoreKind: String, Sendable { case sqlite, postgresql }

    static let usage = """
        usage: objectgraph-bench [--rounds N] [--model seed002|dashboard] [--quick] [--scale F] [--no-memory]
                                 [--no-warm-up] [--json PATH] [--verbose]
                                 [--store sqlite|postgresql] [--pg-port N] [--libpq-insert copy|rows]
               objectgraph-bench --profile MODEL ENGINE OPERATION [--quick | --scale F] [--store postgresql]
          --rounds N    rounds (default 5); every round runs every engine once per operation,
                        in an order rotated by one each round
          --model M     one model only (default: both)
          --quick       a tenth of the issue's sizes
          --scale F     the issue's sizes times F (--quick is --scale 0.1)
          --store S     sqlite (default): raw SQLite, GRDB, ObjectGraph; postgresql: raw libpq
                        and ObjectGraph's PostgreSQL store, seed 002's model, on a server the
                        run starts (scripts/cluster.sh, a folder under /tmp, fsync off) and stops
          --pg-port N   that server's loopback port (default 18410)
          --libpq-insert copy (default: COPY FROM STDIN, libpq's fastest load) or rows
                        (prepared INSERTs in pipeline mode, ObjectGraph's statements per row)
          --no-memory   skip the peak-RSS children
          --no-warm-up  skip the untimed round 0
          --json PATH   also write every sample as JSON
          --verbose     print every timing on stderr
          --profile     run one operation of one engine once, inside `profiledOperation`, for
                        valgrind --tool=callgrind --toggle-collect='*profiledOperation*'
                        (see callgrind-ops.sh); engines: raw, grdb, og; operations: \(Operation.allCases
                            .filter { $0 != .memory }.map(\.rawValue).joined(separator: ", "))
        """

    init(arguments: [String]) throws {
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            switch argument {
            case "--rounds":
                guard let value = iterator.next().flatMap(Int.init), value > 0 else {
                    throw HarnessError("--rounds needs a positive number")
                }
                rounds = value
            case "--model":
                guard let value = iterator.next(), ["seed002", "dashboard"].contains(value) else {
                    throw HarnessError("--model needs seed002 or dashboard")
                }
                models = [value]
            case "--quick": sizes = .quick
            case "--scale":
                guard let value = iterator.next().flatMap(Double.init), value > 0, value <= 10 else {
                    throw HarnessError("--scale needs a number in (0, 10]")
                }
                sizes = Sizes.standard.scaled(by: value)
            case "--store":
                guard let value = iterator.next().flatMap(StoreKind.init(rawValue:)) else {
                    throw HarnessError("--store needs sqlite or postgresql")
                }
                store = value
            case "--pg-port":
                guard let value = iterator.next().flatMap(Int.init), (1024...65535).contains(value) else {
                    throw HarnessError("--pg-port needs a port in 1024...65535")
                }
                postgreSQLPort = value
            case "--libpq-insert":
                guard let value = iterator.next(), ["copy", "rows"].contains(value) else {
                    throw HarnessError("--libpq-insert needs copy or rows")
                }
                libpqInsertsRows = value == "rows"
            case "--no-memory": measureMemory = false
            case "--no-warm-up": warmUp = false
            case "--verbose": verbose = true
            case "--json":
                guard let value = iterator.next() else { throw HarnessError("--json needs a path") }
                jsonPath = value
            case "--help", "-h":
                print(Self.usage)
                exit(0)
            default:
                throw HarnessError("unknown argument \(argument)\n\(Self.usage)")
            }
        }
        if store == .postgresql {
            guard models != ["dashboard"] else { throw HarnessError("--store postgresql runs seed 002's model only") }
            models = ["seed002"]
        }
    }
}

extension Sizes {
    /// Every size times `factor`, at least 1.
    func scaled(by factor: Double) -> Sizes {
        func scale(_ n: Int) -> Int { max(1, Int((Double(n) * factor).rounded())) }
        return Sizes(clients: scale(clients), invoices: scale(invoices), lookups: scale(lookups), updates: scale(updates),
                     relationshipClients: scale(relationshipClients))
    }
}
