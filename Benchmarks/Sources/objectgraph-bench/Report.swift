import Foundation

/// The results, as the plain-text table for the closing note and as JSON.
@MainActor
struct Report {
    let options: Options
    let samples: [Step: [String: [Double]]]
    let memory: [String: MemoryChildResult]

    private var columns: [String] { [Registry.raw.title, Registry.grdb.title, "ObjectGraph"] }

    /// The statistic the table shows for one step and one column.
    func value(_ step: Step, _ key: String) -> Double? {
        guard let values = samples[step]?[key], !values.isEmpty else { return nil }
        return options.statistic == .median ? median(values) : values.min()
    }

    var table: String {
        let og = Registry.objectGraph?.key
        let stepWidth = Step.allCases.map { $0.title(options.sizes).count }.max() ?? 40
        var lines: [String] = []
        let sizes = options.sizes
        lines.append("objectgraph-bench: \(sizes.clients) clients, \(sizes.invoices) invoices; "
            + "\(options.statistic.rawValue) of \(options.runs) runs, milliseconds")
        lines.append(row("step", columns + ["OG/raw", "OG/GRDB"], stepWidth))
        var goalsMet = true
        for step in Step.allCases {
            let raw = value(step, Registry.raw.key)
            let grdb = value(step, Registry.grdb.key)
            let objectGraph = og.flatMap { value(step, $0) }
            if let objectGraph, let raw, let grdb, objectGraph > 2 * raw || objectGraph > grdb { goalsMet = false }
            lines.append(row(step.title(sizes), [ms(raw), ms(grdb), ms(objectGraph),
                                                  ratio(objectGraph, raw), ratio(objectGraph, grdb)], stepWidth))
        }
        if !memory.isEmpty {
            let peak = { (key: String?) in key.flatMap { memory[$0]?.peakKiB }.map(Double.init) }
            let delta = { (key: String?) in key.flatMap { memory[$0]?.deltaKiB }.map(Double.init) }
            lines.append("")
            lines.append("step 2 memory (one child process per column, see Memory.swift)")
            if memory.values.contains(where: { !$0.peakWasReset }) {
                lines.append("(could not reset VmHWM in a child: its peak covers the child's whole life)")
            }
            for (label, read) in [("peak RSS, MiB (VmHWM)", peak), ("growth during step 2, MiB", delta)] {
                let raw = read(Registry.raw.key), grdb = read(Registry.grdb.key), objectGraph = read(og)
                lines.append(row(label, [mib(raw), mib(grdb), mib(objectGraph),
                                         ratio(objectGraph, raw), ratio(objectGraph, grdb)], stepWidth))
            }
        }
        lines.append("")
        if og == nil {
            lines.append("ObjectGraph: no workload registered (Registry.objectGraph), so n/a.")
        } else {
            lines.append("goals (every step ≤ 2× raw and ≤ GRDB): \(goalsMet ? "met" : "NOT met")")
        }
        return lines.joined(separator: "\n")
    }

    func json() throws -> Data {
        struct Column: Encodable {
            var best: Double?, median: Double?, samples: [Double]
        }
        struct StepResult: Encodable {
            var step: Int, title: String, columns: [String: Column]
        }
        struct Document: Encodable {
            var sizes: Sizes, runs: Int, statistic: String
            var steps: [StepResult]
            var step2Memory: [String: MemoryChildResult]
        }
        let steps = Step.allCases.map { step in
            StepResult(step: step.rawValue, title: step.title(options.sizes), columns: (samples[step] ?? [:]).mapValues {
                Column(best: $0.min(), median: median($0), samples: $0)
            })
        }
        let document = Document(sizes: options.sizes, runs: options.runs, statistic: options.statistic.rawValue,
                                steps: steps, step2Memory: memory)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return try encoder.encode(document)
    }

    private func row(_ label: String, _ cells: [String], _ labelWidth: Int) -> String {
        let widths = [12, 12, 13, 9, 9]
        return label.padding(toLength: labelWidth, withPad: " ", startingAt: 0)
            + zip(cells, widths).map { String(repeating: " ", count: max(1, $1 - $0.count)) + $0 }.joined()
    }

    private func ms(_ value: Double?) -> String { value.map { String(format: "%.1f", $0) } ?? "n/a" }
    private func mib(_ kib: Double?) -> String { kib.map { String(format: "%.1f", $0 / 1024) } ?? "n/a" }
    private func ratio(_ a: Double?, _ b: Double?) -> String {
        guard let a, let b, b > 0 else { return "n/a" }
        return String(format: "%.2f×", a / b)
    }
}

func median(_ values: [Double]) -> Double? {
    guard !values.isEmpty else { return nil }
    let sorted = values.sorted()
    let mid = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}
