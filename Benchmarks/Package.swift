// swift-tools-version:6.0
// Benchmarks: a separate package, run in release mode (`make bench`), never part of `make test`.
// Each benchmark runs the same work side by side in one process and prints ratios.
import PackageDescription

let package = Package(
    name: "Benchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "Invoices", path: ".."),
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
    ],
    targets: [
        // Raw SQLite C API, for the baseline column.
        .systemLibrary(name: "CSQLiteBench", pkgConfig: "sqlite3"),
        // Raw libpq (Debian libpq-dev), the baseline of objectgraph-bench --store postgresql.
        .systemLibrary(name: "CLibPQBench", pkgConfig: "libpq"),
        // ObjectGraph against raw SQLite and GRDB records; with --store postgresql, ObjectGraph's
        // PostgreSQL store against raw libpq (issue 15).
        .executableTarget(name: "objectgraph-bench", dependencies: [
            "CSQLiteBench",
            "CLibPQBench",
            .product(name: "ObjectGraph", package: "Invoices"),
            .product(name: "ObjectGraphPostgreSQL", package: "Invoices"),
            .product(name: "GRDB", package: "GRDB.swift"),
        ]),
        // Nested contexts: a child's save into its parent, and the main queue during a child fetch.
        .executableTarget(name: "nesting-bench", dependencies: [
            "CSQLiteBench",
            .product(name: "ObjectGraph", package: "Invoices"),
        ]),
        // Issue 5: commit-to-visible latency across processes; batch insert/delete against raw SQLite.
        .executableTarget(name: "history-bench", dependencies: [
            "CSQLiteBench",
            .product(name: "ObjectGraph", package: "Invoices"),
        ]),
        // Issue 14, part 5: what recording values in history costs a save; one object's history among 1M transactions.
        .executableTarget(name: "history-values-bench", dependencies: [
            "CSQLiteBench",
            .product(name: "ObjectGraph", package: "Invoices"),
        ]),
        // Issue 14: an aggregate (exact Decimal sums per currency) against SQLite's own SUM … GROUP BY.
        .executableTarget(name: "aggregate-bench", dependencies: [
            "CSQLiteBench",
            .product(name: "ObjectGraph", package: "Invoices"),
        ]),
        // Full-text search (`@Attribute(.searchable)`) against a LIKE scan in raw SQLite.
        .executableTarget(name: "search-bench", dependencies: [
            "CSQLiteBench",
            .product(name: "ObjectGraph", package: "Invoices"),
        ]),
        // Issue 14: migrating 100,000 invoices (amount → line item) against hand-written SQL;
        // time per 1,000 rows and peak RSS against the file's size.
        .executableTarget(name: "migration-bench", dependencies: [
            "CSQLiteBench",
            .product(name: "ObjectGraph", package: "Invoices"),
        ]),
        // A bare C libmicrohttpd handler, the baseline for the WebServer benchmark.
        .target(name: "CBareMHD", linkerSettings: [.linkedLibrary("microhttpd")]),
        // WebServer routes against the bare handler, driven by wrk.
        .executableTarget(name: "webserver-bench", dependencies: [
            "CBareMHD",
            .product(name: "WebServer", package: "Invoices"),
        ]),
        // The dashboard's pages (a release-built `invoices` binary, run as a child process) beside
        // the plain WebServer route, on demo data, 100,000 invoices, and during an import.
        .executableTarget(name: "dashboard-bench", dependencies: [
            .product(name: "WebServer", package: "Invoices"),
        ]),
        // Issue 15: a commit on one server → visible in another's main context over PostgreSQL
        // (two stacks, NOTIFY and history); the dashboard through nginx with 1 and 3 servers.
        .executableTarget(name: "cluster-bench", dependencies: [
            .product(name: "InvoicesApp", package: "Invoices"),
            .product(name: "ObjectGraph", package: "Invoices"),
        ]),
    ],
    swiftLanguageModes: [.v6]
)
