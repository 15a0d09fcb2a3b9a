/// The implementations the harness runs, in table order. Each is known by a
/// short key (used on the command line and to re-run step 2 in a child process)
/// and a column title.
struct RegisteredWorkload {
    let key: String
    let title: String
    let type: any Workload.Type
}

@MainActor
enum Registry {
    static let raw = RegisteredWorkload(key: "raw", title: "raw SQLite", type: RawSQLiteWorkload.self)
    static let grdb = RegisteredWorkload(key: "grdb", title: "GRDB", type: GRDBWorkload.self)

    /// The ObjectGraph column. To register it: add `ObjectGraphWorkload.swift`
    /// (a `final class ObjectGraphWorkload: Workload`) and replace `nil` with
    /// `RegisteredWorkload(key: "objectgraph", title: "ObjectGraph", type: ObjectGraphWorkload.self)`.
    /// While it is nil the column and the ratios print "n/a".
    static let objectGraph: RegisteredWorkload? = RegisteredWorkload(
        key: "objectgraph", title: "ObjectGraph", type: ObjectGraphWorkload.self)

    static var all: [RegisteredWorkload] { [raw, grdb] + (objectGraph.map { [$0] } ?? []) }
}
