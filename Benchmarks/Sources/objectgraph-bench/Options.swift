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

    static let usage = """
        usage: objectgraph-bench [--rounds N] [--model seed002|dashboard] [--quick] [--no-memory]
                                 [--no-warm-up] [--json PATH] [--verbose]
               objectgraph-bench --profile MODEL ENGINE OPERATION [--quick]
          --rounds N    rounds (default 5); every round runs every engine once per operation,
                        in an order rotated by one each round
          --model M     one model only (default: both)
          --quick       a tenth of the issue's sizes
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
    }
}
