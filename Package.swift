// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Invoices",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "ObjectGraph", targets: ["ObjectGraph"]),
        .library(name: "ObjectGraphPostgreSQL", targets: ["ObjectGraphPostgreSQL"]),
        .library(name: "WebServer", targets: ["WebServer"]),
        // For the fuzz targets in Fuzz/, which read its CSV parser.
        .library(name: "InvoicesApp", targets: ["InvoicesApp"]),
        .executable(name: "invoices", targets: ["invoices"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache", from: "2.1.1"),
    ],
    targets: [
        // System libraries (Debian: libsqlite3-dev, libpq-dev, libmicrohttpd-dev, libcmark-dev, libpango1.0-dev,
        // libcairo2-dev).
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3",
                       providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CLibPQ", pkgConfig: "libpq",
                       providers: [.apt(["libpq-dev"])]),
        .systemLibrary(name: "CMicroHTTPD", pkgConfig: "libmicrohttpd",
                       providers: [.apt(["libmicrohttpd-dev"])]),
        .systemLibrary(name: "CCmark", pkgConfig: "libcmark",
                       providers: [.apt(["libcmark-dev"])]),
        // SHA-256 of session IDs before they are stored (OpenSSL's libcrypto).
        .systemLibrary(name: "CCrypto", pkgConfig: "libcrypto",
                       providers: [.apt(["libssl-dev"])]),
        // Invoice PDFs: cairo's PDF surface, text laid out by pango (any script fontconfig has a font for).
        .systemLibrary(name: "CPangoCairo", pkgConfig: "pangocairo",
                       providers: [.apt(["libpango1.0-dev", "libcairo2-dev"])]),

        // The object graph framework: Foundation and SQLite only.
        .target(name: "ObjectGraph", dependencies: ["CSQLite"]),
        // ObjectGraph's PostgreSQL store, over libpq.
        .target(name: "ObjectGraphPostgreSQL", dependencies: ["ObjectGraph", "CLibPQ"]),

        // HTTP over libmicrohttpd, templates, markdown. Knows nothing of invoices.
        .target(name: "WebServer", dependencies: [
            "CMicroHTTPD", "CCmark",
            .product(name: "Logging", package: "swift-log"),
            .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "Mustache", package: "swift-mustache"),
        ]),

        // The Invoices domain, context stack, sessions, pages and inspector.
        // Mustache for the pages' typed template contexts.
        .target(name: "InvoicesApp", dependencies: [
            "ObjectGraph", "ObjectGraphPostgreSQL", "WebServer", "CPangoCairo", "CCrypto",
            .product(name: "Logging", package: "swift-log"),
            .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "Mustache", package: "swift-mustache"),
        ]),

        .executableTarget(name: "invoices", dependencies: [
            "InvoicesApp", "WebServer",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),

        // Small programs the tests run as real child processes.
        // What the test targets share: starting child processes without Foundation's Process.
        .target(name: "CTestSupport", path: "Tests/Support/CTestSupport"),
        .target(name: "TestSupport", dependencies: ["CTestSupport", .product(name: "Logging", package: "swift-log")],
                path: "Tests/Support/TestSupport"),
        // A SQLite VFS that fails writes on demand: a real I/O error for the save tests.
        .target(name: "CFailingVFS", dependencies: ["CSQLite"], path: "Tests/Support/CFailingVFS"),
        .target(name: "ObjectGraphFixtureModel", dependencies: ["ObjectGraph"],
                path: "Tests/Fixtures/ObjectGraphFixtureModel"),
        .executableTarget(name: "objectgraph-fixture", dependencies: ["ObjectGraph", "ObjectGraphFixtureModel", "CSQLite"],
                          path: "Tests/Fixtures/objectgraph-fixture"),

        .testTarget(name: "ObjectGraphTests", dependencies: ["ObjectGraph", "ObjectGraphPostgreSQL", "ObjectGraphFixtureModel",
                                                             "TestSupport", "CTestSupport", "CSQLite", "CFailingVFS"]),
        .testTarget(name: "WebServerTests", dependencies: ["WebServer", "TestSupport",
                                                           .product(name: "Mustache", package: "swift-mustache")]),
        .testTarget(name: "InvoicesAppTests", dependencies: [
            "InvoicesApp", "ObjectGraph", "WebServer", "CSQLite", "TestSupport", "CTestSupport",
            .product(name: "Mustache", package: "swift-mustache"),
        ]),
    ],
    swiftLanguageModes: [.v6]
)
