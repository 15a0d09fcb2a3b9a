import Foundation
import Testing
@testable import InvoicesApp

/// Uploads held in memory are bounded: at most so many imports run at once.
@Suite struct ImportJobsTests {
    @Test func atMostTwoImportsRunAtOnceAndAFinishedOneMakesRoom() {
        let jobs = ImportJobs()
        let first = jobs.start(filename: "a.csv")
        let second = jobs.start(filename: "b.csv")
        #expect(first != nil && second != nil)
        #expect(jobs.start(filename: "c.csv") == nil)          // refused while two run
        jobs.update(first ?? "") { $0.failure = "done" }
        #expect(jobs.start(filename: "c.csv") != nil)          // room again
        #expect(jobs.start(filename: "d.csv") == nil)
    }

    @Test func oldFinishedJobsAreForgottenButRunningOnesAreKept() {
        let jobs = ImportJobs()
        let running = jobs.start(filename: "long.csv") ?? ""
        for n in 0..<(ImportJobs.kept + 10) {
            let id = jobs.start(filename: "\(n).csv") ?? ""
            jobs.update(id) { $0.failure = "done" }
        }
        #expect(jobs.job(running) != nil)
    }
}
