import Foundation

/// Command-line options. Hand-parsed: the Benchmarks package takes no
/// dependency beyond what it measures.
struct Options: Sendable {
    enum Statistic: String, Sendable { case best, median }

    var runs = 5
    var sizes = Sizes.standard
    var statistic = Statistic.best
    var jsonPath: String?
    var keepFiles = false
    var measureMemory = true
    var warmUp = true
    var verbose = false

    static let usage = """
        usage: objectgraph-bench [--runs N] [--median] [--quick] [--json PATH] [--no-memory] [--no-warm-up] [--keep-files] [--verbose]
          --runs N      runs per step and column (default 5); the table shows the best
          --median      show the median of the runs instead of the best
          --quick       a tenth of the issue's sizes, to check the harness quickly
          --json PATH   also write every sample as JSON to PATH
          --no-memory   skip the step 2 memory children
          --no-warm-up  skip the untimed first run of each step
          --keep-files  keep the SQLite files (their folder is printed)
          --verbose     print every run's time on stderr
        """

    init(arguments: [String]) throws {
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            switch argument {
            case "--runs":
                guard let value = iterator.next().flatMap(Int.init), value > 0 else {
                    throw HarnessError("--runs needs a positive number")
                }
                runs = value
            case "--median": statistic = .median
            case "--quick": sizes = .quick
            case "--json":
                guard let value = iterator.next() else { throw HarnessError("--json needs a path") }
                jsonPath = value
            case "--no-memory": measureMemory = false
            case "--no-warm-up": warmUp = false
            case "--keep-files": keepFiles = true
            case "--verbose": verbose = true
            case "--help", "-h":
                print(Self.usage)
                exit(0)
            default:
                throw HarnessError("unknown argument \(argument)\n\(Self.usage)")
            }
        }
    }
}
