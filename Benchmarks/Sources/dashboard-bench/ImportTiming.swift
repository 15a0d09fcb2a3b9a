import Foundation

// --mode import (issue 18, "Import at scale"): `invoices import` of a generated file in the
// export's shape (CSVGeneration.swift: about three line rows and a payment row per invoice)
// into a new database, as a user runs it, in a process of its own. Prints the rows, the
// seconds, rows per second and the importer's peak RSS (its VmHWM, read while it runs: the
// waited child's getrusage counts the image of this process, file text and all, that it was
// forked from), and checks the import's report counted every invoice.

/// Peak resident set of the children waited for so far, in MiB (Linux reports KiB).
func childrenPeakRSS() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_CHILDREN.rawValue, &usage)
    return Double(usage.ru_maxrss) / 1024
}

@MainActor func runImportTiming() -> Int32 {
    do {
        let csv = work.appendingPathComponent("import.csv")
        let started = Date()
        let written = try writeCSV(to: csv, rows: options.rows, clients: options.clients, prefix: "BENCH-I", seed: 7)
        print("\nimport: \(options.rows) invoices over \(options.clients) clients, \(written) rows, "
              + "generated in \(format(Date().timeIntervalSince(started))) s")
        for round in 1...options.rounds {
            // Each round a new database (and no WAL of the last one's) in a folder of its own.
            let folder = work.appendingPathComponent("round-\(round)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let db = folder.appendingPathComponent("import.sqlite")
            let importing = try ImportProcess(csv: csv, db: db, workDirectory: work, name: "import-\(round)")
            let status = importing.wait(timeout: options.importTimeout)
            guard status == 0 else { problem("import failed (exit \(status.map(String.init) ?? "timeout")):\n\(importing.summary())"); return 1 }
            let report = (try? String(contentsOf: importing.outURL, encoding: .utf8)) ?? ""
            if !report.contains("Imported \(options.rows) of \(options.rows) invoices") {
                problem("the import did not take every invoice:\n\(importing.summary())")
            }
            let rate = Double(written) / importing.seconds
            print("  round \(round): \(format(importing.seconds)) s, \(Int(rate)) rows/s, "
                  + "\(Int(Double(options.rows) / importing.seconds)) invoices/s, peak RSS \(importing.peakRSSKiB / 1024) MiB")
        }
        print("goal: at least 50,000 rows/s, peak RSS under 200 MB")
        return problems.isEmpty ? 0 : 3
    } catch {
        problem("\(error)")
        return 1
    }
}
