import Foundation
import Testing
@testable import ObjectGraph

/// Records beside the model (``StoreRecords``): what servers on one store share that is not
/// data (sessions, open forms). They expire, go by group, and never look like a data change.
@Suite struct StoreRecordsTests {
    @Test(arguments: TestStore.all) func recordsExpireAndAGroupGoesTogether(_ store: TestStore) throws {
        let coordinator = try store.coordinator()
        let records = try coordinator.records(named: "forms")
        let now = Date()
        try records.setValue("alive", for: "a", group: "s1", expiresAt: now.addingTimeInterval(60))
        try records.setValue("also", for: "b", group: "s1", expiresAt: now.addingTimeInterval(60))
        try records.setValue("other", for: "c", group: "s2", expiresAt: now.addingTimeInterval(60))
        try records.setValue("stale", for: "d", group: "s2", expiresAt: now.addingTimeInterval(-1))
        // Records of another name never meet these.
        try coordinator.records(named: "sessions").setValue("session", for: "a", expiresAt: now.addingTimeInterval(60))

        #expect(try records.value(for: "a", now: now) == "alive")
        #expect(try records.value(for: "d", now: now) == nil)   // expired reads as missing
        #expect(try records.count(asOf: now) == 3)
        #expect(try records.keys(inGroup: "s1", now: now) == ["a", "b"])
        try records.setValue("changed", for: "a", group: "s1", expiresAt: now.addingTimeInterval(60))
        #expect(try records.value(for: "a", now: now) == "changed")   // the last write wins

        // A group's expiry moves together; later, what is past it goes.
        try records.extendExpiry(ofGroup: "s1", to: now.addingTimeInterval(600))
        #expect(try records.removeExpired(asOf: now.addingTimeInterval(120)) == 2)   // c, d
        #expect(try records.keys(inGroup: "s1", now: now.addingTimeInterval(120)) == ["a", "b"])
        #expect(try records.removeAll(inGroup: "s1") == 2)
        #expect(try records.count(asOf: now) == 0)
        #expect(try coordinator.records(named: "sessions").value(for: "a", now: now) == "session")
        #expect(try records.removeValue(for: "a") == false)
    }

    @Test(arguments: TestStore.shared) func writingRecordsRecordsNoHistoryAndMovesNoChangeSignal(_ store: TestStore) async throws {
        let location = store.makeLocation()
        let writer = try location.coordinator(recordsHistory: true)
        let reader = try location.coordinator(recordsHistory: true)
        let signal = try reader.storeChangeSignal()
        let records = try writer.records(named: "forms")
        let token = try reader.currentHistoryToken()
        let before = signal.current
        for keystroke in 0..<20 {
            try records.setValue("typed \(keystroke)", for: "form", group: "s", expiresAt: Date().addingTimeInterval(60))
        }
        try await Task.sleep(for: .milliseconds(200))   // past the reuse interval and a notification's way
        #expect(signal.current == before)
        #expect(try reader.currentHistoryToken() == token)

        // A save is a data change, and the signal says so.
        let context = ManagedObjectContext(.privateQueue, coordinator: writer)
        try await context.perform {
            Client(context: context).name = "Acme"
            try context.save()
        }
        // At least 200 looks as well as 2 s: a busy test process may hold this task for a while.
        let deadline = ContinuousClock.now + .seconds(2)
        var looks = 0
        while signal.current == before && (looks < 200 || ContinuousClock.now < deadline) {
            try await Task.sleep(for: .milliseconds(10))
            looks += 1
        }
        #expect(signal.current != before)
    }
}
