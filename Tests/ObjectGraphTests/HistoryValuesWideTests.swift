import Foundation
import Testing
@testable import ObjectGraph

/// An entity with more recorded properties than one statement of history values takes
/// (SQLite writes a change's values up to 32 to a statement): every value is recorded, once.
@Suite struct HistoryValuesWideTests {
    /// 40 recorded attributes.
    final class Form: ManagedObject {
        override class var recordsValuesInHistory: Bool { true }
        @Attribute var f00: String = ""; @Attribute var f01: String = ""; @Attribute var f02: String = ""
        @Attribute var f03: String = ""; @Attribute var f04: String = ""; @Attribute var f05: String = ""
        @Attribute var f06: String = ""; @Attribute var f07: String = ""; @Attribute var f08: String = ""
        @Attribute var f09: String = ""; @Attribute var f10: String = ""; @Attribute var f11: String = ""
        @Attribute var f12: String = ""; @Attribute var f13: String = ""; @Attribute var f14: String = ""
        @Attribute var f15: String = ""; @Attribute var f16: String = ""; @Attribute var f17: String = ""
        @Attribute var f18: String = ""; @Attribute var f19: String = ""; @Attribute var f20: String = ""
        @Attribute var f21: String = ""; @Attribute var f22: String = ""; @Attribute var f23: String = ""
        @Attribute var f24: String = ""; @Attribute var f25: String = ""; @Attribute var f26: String = ""
        @Attribute var f27: String = ""; @Attribute var f28: String = ""; @Attribute var f29: String = ""
        @Attribute var f30: String = ""; @Attribute var f31: String = ""; @Attribute var f32: String = ""
        @Attribute var f33: String = ""; @Attribute var f34: String = ""; @Attribute var f35: String = ""
        @Attribute var f36: String = ""; @Attribute var f37: String = ""; @Attribute var f38: String = ""
        @Attribute var f39: String = ""
    }

    static let model: ManagedObjectModel = {
        do { return try ManagedObjectModel(entities: [Form.self]) } catch { fatalError("wide model: \(error)") }
    }()

    static let names = (0..<40).map { String(format: "f%02d", $0) }

    @Test(arguments: TestStore.all) func everyValueOfAWideInsertAndUpdateIsRecorded(_ store: TestStore) async throws {
        let location = store.makeLocation()
        defer { location.cleanUp() }
        let coordinator = try location.coordinator(model: Self.model, recordsHistory: true)
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        let start = try coordinator.currentHistoryToken()
        let id = try await context.perform {
            let form = Form(context: context)
            for name in Self.names { try form.setValue("new " + name, forKey: name) }
            try context.save()
            for name in Self.names.suffix(35) { try form.setValue("changed " + name, forKey: name) }
            try context.save()
            return form.objectID
        }
        let changes = try coordinator.history(after: start).flatMap { $0.changes.filter { $0.objectID == id } }
        try #require(changes.count == 2)
        let inserted = changes[0].values, updated = changes[1].values
        #expect(inserted.count == 40 && updated.count == 35, "\(inserted.count) and \(updated.count) values")
        for name in Self.names {
            #expect(inserted[name]?.new(as: String.self) == "new " + name, "\(name) inserted")
        }
        for name in Self.names.suffix(35) {
            #expect(updated[name]?.old(as: String.self) == "new " + name
                    && updated[name]?.new(as: String.self) == "changed " + name, "\(name) updated")
        }
    }
}
