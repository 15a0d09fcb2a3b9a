import Foundation

/// Times `/invoices/{pk}.pdf` for up to `count` invoices of the first list page (each a PDF
/// rendered anew), one request at a time with curl's own clock (`time_total`, the request
/// without curl's start-up). Returns the sorted times in milliseconds.
func timePDFs(base: String, count: Int = 50) -> [Double] {
    let list = fetch(base + "/invoices.json?page_size=\(count)").body
    let keys = list.matches(of: /"id"\s*:\s*([0-9]+)/).compactMap { Int($0.1) }
    var times: [Double] = []
    for pk in keys.prefix(count) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = ["-s", "-o", "/dev/null", "--max-time", "30", "-w", "%{http_code} %{time_total}",
                             base + "/invoices/\(pk).pdf"]
        let pipe = Pipe()
        process.standardOutput = pipe
        do { try process.run() } catch { problem("curl: \(error)"); return times }
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let fields = output.split(separator: " ")
        guard fields.count == 2, fields[0] == "200", let seconds = Double(fields[1]) else {
            problem("GET /invoices/\(pk).pdf answered \(output)")
            continue
        }
        times.append(seconds * 1000)
    }
    if times.isEmpty { problem("no invoice found to render as PDF") }
    return times.sorted()
}

/// The PDF timings as a line of the report: median, p99 and the slowest, against the goal.
func pdfSummary(_ times: [Double], goal: Double = 50) -> (line: String, met: Bool) {
    guard !times.isEmpty else { return ("no PDF timed", false) }
    func percentile(_ p: Double) -> Double { times[min(times.count - 1, Int((Double(times.count) * p).rounded(.up)) - 1)] }
    let met = percentile(0.99) < goal
    return ("\(times.count) PDFs: median \(format(percentile(0.5), 2)) ms, p99 \(format(percentile(0.99), 2)) ms, "
            + "slowest \(format(times.last ?? .nan, 2)) ms (goal p99 < \(Int(goal)) ms: \(met ? "met" : "NOT met"))", met)
}
