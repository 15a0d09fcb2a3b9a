import Foundation

/// The results of one model: a table of medians, each ratio line followed by its per-round
/// ratios (the median of those is the ratio shown), and whether the goals are met.
struct Report {
    let samples: ModelSamples

    /// The peers ObjectGraph is divided by: raw (SQLite or libpq), and GRDB when it ran.
    private var peers: [(key: String, label: String)] {
        samples.engines.filter { $0.key != "og" }.map { ($0.key, $0.key == "grdb" ? "OG/GRDB" : "OG/raw") }
    }

    /// Per-round ratios of engine `a` over engine `b` for `operation`.
    func ratios(_ operation: Operation, _ a: String, _ b: String) -> [Double] {
        guard let x = samples.values[operation]?[a], let y = samples.values[operation]?[b] else { return [] }
        return zip(x, y).map { $1 > 0 ? $0 / $1 : .nan }
    }

    var table: String {
        let width = Operation.allCases.map { $0.title(samples.sizes).count }.max() ?? 40
        let hasGRDB = samples.engines.contains { $0.key == "grdb" }
        var lines = ["\(samples.modelTitle): \(samples.sizes.clients) clients, \(samples.sizes.invoices) invoices; "
                     + "median of \(samples.values[.insert]?["raw"]?.count ?? 0) rounds (ms; MiB for RSS)"]
        lines.append(row("operation", samples.engines.map(\.title) + peers.map(\.label), width))
        var met = true
        for operation in Operation.allCases {
            guard let values = samples.values[operation] else { continue }
            let scale = operation == .memory ? 1.0 / 1024 : 1
            let cells = samples.engines.map { engine in
                median(values[engine.key] ?? []).map { String(format: "%.1f", $0 * scale) } ?? "n/a"
            }
            let perRound = peers.map { ratios(operation, "og", $0.key) }
            let medians = perRound.map { median($0) }
            if let r = medians.first ?? nil, r > operation.goalOverRaw { met = false }
            if hasGRDB, operation.hasGoalOverGRDB, let g = medians.last ?? nil, g > 1 { met = false }
            lines.append(row(operation.title(samples.sizes), cells + medians.map(ratio), width))
            lines.append("    rounds  " + zip(peers, perRound).map { "\($0.label) " + $1.map(short).joined(separator: " ") }
                .joined(separator: "   "))
        }
        if hasGRDB {
            lines.append("goals (every operation ≤ 2.0× raw SQLite and ≤ 1.0× GRDB; peak RSS ≤ 2× raw): "
                         + (met ? "met" : "NOT met"))
        }
        return lines.joined(separator: "\n")
    }

    private func row(_ label: String, _ cells: [String], _ width: Int) -> String {
        let widths = samples.engines.map { max(9, $0.title.count + 2) } + peers.map { _ in 9 }
        return label.padding(toLength: width, withPad: " ", startingAt: 0)
            + zip(cells, widths).map { String(repeating: " ", count: max(1, $1 - $0.count)) + $0 }.joined()
    }

    private func ratio(_ value: Double?) -> String { value.map { String(format: "%.2f×", $0) } ?? "n/a" }
    private func short(_ value: Double) -> String { String(format: "%.2f", value) }
}

extension ModelSamples {
    /// Every sample, for `--json`.
    func json() -> [String: Any] {
        var operations: [String: Any] = [:]
        for (operation, engines) in values {
            operations[operation.rawValue] = engines
        }
        return ["model": modelKey, "sizes": ["clients": sizes.clients, "invoices": sizes.invoices],
                "samples": operations]
    }
}

func median(_ values: [Double]) -> Double? {
    guard !values.isEmpty else { return nil }
    let sorted = values.sorted()
    let mid = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}
