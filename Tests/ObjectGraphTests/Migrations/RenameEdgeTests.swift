import Foundation
import ObjectGraph
import Testing

/// Renames that reuse names: an entity renamed while a new one takes its old name, and two
/// attributes trading names.
@Suite struct RenameEdgeTests {
    enum Old {
        final class Note: ManagedObject {
            @Attribute var text: String
            @Attribute var first: String = ""
            @Attribute var second: String = ""
        }
    }

    /// `Note` is now `Memo` (with `first` and `second` swapped); a new `Note` is something else.
    enum New {
        final class Memo: ManagedObject {
            @Attribute var text: String
            @Attribute var first: String = ""
            @Attribute var second: String = ""
        }
        final class Note: ManagedObject {
            @Attribute var pitch: Int = 0
        }
    }

    static let old = CatalogV1.makeModel([Old.Note.self], version: 1)
    static let new = CatalogV1.makeModel([New.Memo.self, New.Note.self], version: 2)

    static func plan() throws -> MigrationPlan {
        try MigrationPlan(models: [old, new], stages: [
            .lightweight(from: 1, to: 2, renaming: [
                .entity(Old.Note.self, to: New.Memo.self),
                .property(\Old.Note.first, to: \New.Memo.second),
                .property(\Old.Note.second, to: \New.Memo.first),
            ]),
        ])
    }

    @Test func aNewEntityMayTakeTheNameOfARenamedOneAndAttributesMayTradeNames() async throws {
        // Given a version 1 file with two notes
        let url = TestStack.fileURL()
        defer { StoreFileState.cleanUp(url) }
        let v1 = try InvoiceFiles.open(url, with: Self.old)
        let context = ManagedObjectContext(.privateQueue, coordinator: v1)
        try await context.perform {
            for (text, first, second) in [("call", "a", "b"), ("write", "c", "d")] {
                let note = Old.Note(context: context)
                (note.text, note.first, note.second) = (text, first, second)
            }
            try context.save()
        }
        withExtendedLifetime(v1) {}

        // When version 2 opens it, and saves a memo and a new kind of note
        let coordinator = try InvoiceFiles.open(url, with: Self.new, plan: try Self.plan())
        let check = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        let (memos, keys) = try await check.perform {
            let memos = try check.fetch(FetchRequest<New.Memo>(sortBy: [SortDescriptor(\.text)])).map { [$0.text, $0.first, $0.second] }
            let memo = New.Memo(context: check)
            memo.text = "read"
            let note = New.Note(context: check)
            note.pitch = 440
            try check.save()
            return (memos, [memo.objectID.primaryKey, note.objectID.primaryKey])
        }

        // Then the old notes are memos with their values traded, and keys carry on per entity
        #expect(memos == [["call", "b", "a"], ["write", "d", "c"]])
        #expect(keys == [3, 1])
        #expect(try SQLiteFile.columns(of: "Note", at: url) == ["_pk", "_version", "pitch"])
    }
}
