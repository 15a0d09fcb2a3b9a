// migration-bench: migrating a file of 100,000 invoices from version 1 to 3 (a lightweight
// stage, then a custom stage that turns each amount into a line item), against the same
// migration in hand-written SQL. Each measurement runs in a child process of its own, on a
// fresh copy of the same version 1 file, columns interleaved over rounds; the child
// reports its time and its peak RSS (VmHWM, reset just before the migration).
//
// Usage: migration-bench [--invoices N] [--rounds N]
//        migration-bench --child COLUMN PATH N   (one measurement, run by the bench)
import Foundation

func value(_ flag: String) -> String? {
    guard let i = CommandLine.arguments.firstIndex(of: flag), i + 1 < CommandLine.arguments.count else { return nil }
    return CommandLine.arguments[i + 1]
}

if let i = CommandLine.arguments.firstIndex(of: Child.flag), i + 3 < CommandLine.arguments.count,
   let column = Column(rawValue: CommandLine.arguments[i + 1]), let count = Int(CommandLine.arguments[i + 3]) {
    do { try Child.run(column, path: CommandLine.arguments[i + 2], count: count) } catch {
        FileHandle.standardError.write(Data("child \(column.rawValue): \(error)\n".utf8))
        exit(1)
    }
    exit(0)
}

let count = value("--invoices").flatMap(Int.init) ?? 100_000
let rounds = value("--rounds").flatMap(Int.init) ?? 3
let folder = FileManager.default.temporaryDirectory.appendingPathComponent("migration-bench-\(UUID().uuidString)")
do {
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    try Bench.run(count: count, rounds: rounds, folder: folder)
} catch {
    print("migration-bench failed: \(error)")
    exit(1)
}
