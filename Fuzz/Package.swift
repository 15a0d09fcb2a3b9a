// swift-tools-version:6.0
// libFuzzer targets for the parsers that read what comes from the network or a file: a
// separate package, built with the fuzzer and address sanitizers (`make fuzz`, and
// `make test` runs each corpus once). Each target reads the root package's internals with
// `@testable import`, so it is built in debug (testable) mode or with -enable-testing.
import PackageDescription

let package = Package(
    name: "Fuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "Invoices", path: ".."),
    ],
    targets: [
        // What the harnesses share: reading the input, and failing loudly when a property breaks.
        .target(name: "FuzzSupport"),
        .executableTarget(name: "percent-decoding", dependencies: ["FuzzSupport", .product(name: "WebServer", package: "Invoices")]),
        .executableTarget(name: "query-string", dependencies: ["FuzzSupport", .product(name: "WebServer", package: "Invoices")]),
        .executableTarget(name: "cookies", dependencies: ["FuzzSupport", .product(name: "WebServer", package: "Invoices")]),
        .executableTarget(name: "multipart", dependencies: ["FuzzSupport", .product(name: "WebServer", package: "Invoices")]),
        .executableTarget(name: "request-target", dependencies: ["FuzzSupport", .product(name: "WebServer", package: "Invoices")]),
        .executableTarget(name: "event-stream", dependencies: ["FuzzSupport", .product(name: "WebServer", package: "Invoices")]),
        .executableTarget(name: "markdown-escape", dependencies: ["FuzzSupport", .product(name: "WebServer", package: "Invoices")]),
        .executableTarget(name: "csv", dependencies: ["FuzzSupport", .product(name: "InvoicesApp", package: "Invoices")]),
    ],
    swiftLanguageModes: [.v6]
)
