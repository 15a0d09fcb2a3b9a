import Foundation

/// The results of one model: a table of medians, each ratio line followed by its per-round
/// ratios (the median of those is the ratio shown), and whether the goals are met.
struct Report {
    let samples: ModelSamples

    private var keys: (raw: String, grdb: String, og: String) { ("raw", "grdb", "og") }

    /// Per-round ratios of engine `a` over engine `b` for `operation`.
    func ratios(_ operation: Operation, _ a: String, _ b: String) -> [Double] {
        guard let x = samples.values[operation]?[a], let y = samples.values[operation]?[b] else { return [] }
        return zip(x, y).map { $1 > 0 ? $0 / $1 : .nan }
    }

    var table: String {
        let width = Operation.allCases.map { $0.title(samples.sizes).count }.max() ?? 40
        var lines = ["\(samples.modelTitle): \(samples.sizes.clients) clients, \(samples.sizes.invoices) invoices; "
                     + "median of \(samples.values[.insert]?[keys.raw]?.count ?? 0) rounds (ms; MiB for RSS)"]
        lines.append(row("operation", samples.engines.map(\.title) + ["OG/raw", "OG/GRDB"], width))
        var met = true
        for operation in Operation.allCases {
            guard let values = samples.values[operation] else { continue }
            let scale = operation == .memory ? 1.0 / 1024 : 1
            let cells = samples.engines.map { engine in
                median(values[engine.key] ?? []).map { String(format: "%.1f", $0 * scale) } ?? "n/a"
            }
            let overRaw = ratios(operation, keys.og, keys.raw), overGRDB = ratios(operation, keys.og, keys.grdb)
            let (r, g) = (median(overRaw), median(overGRDB))
            if let r, r > operation.goalOverRaw { met = false }
            if operation.hasGoalOverGRDB, let g, g > 1 { met = false }
            lines.append(row(operation.title(samples.sizes), cells + [ratio(r), ratio(g)], width))
            lines.append("    rounds  OG/raw " + overRaw.map(short).joined(separator: " ")
                         + "   OG/GRDB " + overGRDB.map(short).joined(separator: " "))
        }
        lines.append("goals (every operation ≤ 2.0× raw SQLite and ≤ 1.0× GRDB; peak RSS ≤ 2× raw): "
                     + (met ? "met" : "NOT met"))
        return lines.joined(separator: "\n")
    }

    private func row(_ label: String, _ cells: [String], _ width: Int) -> String {
        let widths = [12, 11, 13, 9, 9]
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
