import Foundation
import Testing
@testable import ObjectGraph

/// The merge policies at a root save, as pure functions of base, ours and theirs: no store,
/// no context, just rows of the test model's Client.
@Suite struct RowMergeTests {
    /// A Client row by property name; properties not given are `.null`, to-many `.unloaded`.
    private static func client(_ values: [String: StoredValue]) throws -> [StoredValue] {
        let entity = try Self.entity()
        return entity.properties.map { property in
            if let value = values[property.name] { return value }
            if case .relationship(let r) = property, r.isToMany { return .unloaded }
            return .null
        }
    }

    private static func entity() throws -> EntityDescription {
        try #require(TestStack.model.entity(named: "Client"))
    }

    private static func value(_ row: [StoredValue], _ name: String) throws -> StoredValue {
        let index = try #require(try entity().propertyIndexByName[name])
        return row[index]
    }

    /// The read row: Acme in Paris. Ours renames it to "Acme Ltd" and sets an email; theirs
    /// renamed it to "Acme Corp" and moved it to Lyon.
    private static func rows() throws -> (base: [StoredValue], ours: [StoredValue], theirs: [StoredValue]) {
        (try client(["name": .string("Acme"), "city": .string("Paris")]),
         try client(["name": .string("Acme Ltd"), "email": .string("a@acme.test"), "city": .string("Paris")]),
         try client(["name": .string("Acme Corp"), "city": .string("Lyon")]))
    }

    @Test func errorListsThePropertiesChangedOnBothSidesToDifferentValues() throws {
        let (base, ours, theirs) = try Self.rows()
        let resolution = RowMerge.resolve(base: base, ours: ours, theirs: theirs, entity: try Self.entity(), policy: .error)
        let name = MergeConflict.PropertyConflict(property: "name", base: StoredValue.string("Acme"),
                                                  ours: StoredValue.string("Acme Ltd"), theirs: StoredValue.string("Acme Corp"))
        #expect(resolution == .conflict([name]))
    }

    @Test func errorRefusesEvenWhenTheyChangedOnlyWhatWeDidNot() throws {
        let (base, _, theirs) = try Self.rows()
        let ours = try Self.client(["name": .string("Acme"), "email": .string("a@acme.test"), "city": .string("Paris")])
        let resolution = RowMerge.resolve(base: base, ours: ours, theirs: theirs, entity: try Self.entity(), policy: .error)
        #expect(resolution == .conflict([]))
    }

    @Test func objectTrumpKeepsOurChangesAndTheirsWhereWeChangedNothing() throws {
        let (base, ours, theirs) = try Self.rows()
        let resolution = RowMerge.resolve(base: base, ours: ours, theirs: theirs, entity: try Self.entity(),
                                          policy: .mergeByPropertyObjectTrump)
        guard case .write(let merged) = resolution else { Issue.record("\(resolution)"); return }
        #expect(try Self.value(merged, "name") == .string("Acme Ltd"))
        #expect(try Self.value(merged, "email") == .string("a@acme.test"))
        #expect(try Self.value(merged, "city") == .string("Lyon"))
    }

    @Test func storeTrumpKeepsTheirValueWhereBothChangedAndOurChangesElsewhere() throws {
        let (base, ours, theirs) = try Self.rows()
        let resolution = RowMerge.resolve(base: base, ours: ours, theirs: theirs, entity: try Self.entity(),
                                          policy: .mergeByPropertyStoreTrump)
        guard case .write(let merged) = resolution else { Issue.record("\(resolution)"); return }
        #expect(try Self.value(merged, "name") == .string("Acme Corp"))
        #expect(try Self.value(merged, "email") == .string("a@acme.test"))
        #expect(try Self.value(merged, "city") == .string("Lyon"))
    }

    @Test func overwriteWritesOurWholeRow() throws {
        let (base, ours, theirs) = try Self.rows()
        let resolution = RowMerge.resolve(base: base, ours: ours, theirs: theirs, entity: try Self.entity(), policy: .overwrite)
        #expect(resolution == .write(ours))
    }

    @Test func rollbackKeepsTheirRow() throws {
        let (base, ours, theirs) = try Self.rows()
        let resolution = RowMerge.resolve(base: base, ours: ours, theirs: theirs, entity: try Self.entity(), policy: .rollback)
        #expect(resolution == .keepTheirs)
    }

    @Test func theSameChangeOnBothSidesIsNoConflictingProperty() throws {
        let base = try Self.client(["name": .string("Acme")])
        let both = try Self.client(["name": .string("Acme Ltd")])
        #expect(RowMerge.conflicts(base: base, ours: both, theirs: both, entity: try Self.entity()).isEmpty)
        let resolution = RowMerge.resolve(base: base, ours: both, theirs: both, entity: try Self.entity(),
                                          policy: .mergeByPropertyStoreTrump)
        #expect(resolution == .write(both))
    }

    @Test func toManyRelationshipsNeverConflict() throws {
        let entity = try Self.entity()
        let invoice = { (pk: Int64) in
            ObjectID(entityName: "Invoice", key: .permanent(store: UUID(), primaryKey: pk))
        }
        let (a, b, c) = (invoice(1), invoice(2), invoice(3))
        let base = try Self.client(["name": .string("Acme"), "invoices": .references([a])])
        let ours = try Self.client(["name": .string("Acme"), "invoices": .references([a, b])])
        let theirs = try Self.client(["name": .string("Acme"), "invoices": .references([a, c])])
        #expect(RowMerge.conflicts(base: base, ours: ours, theirs: theirs, entity: entity).isEmpty)
    }

    @Test func anInsertMeetingItsUniqueKeyFollowsThePolicy() {
        #expect(RowMerge.resolveInsert(policy: .error) == .refuse)
        #expect(RowMerge.resolveInsert(policy: .mergeByPropertyObjectTrump) == .writeOurs)
        #expect(RowMerge.resolveInsert(policy: .overwrite) == .writeOurs)
        #expect(RowMerge.resolveInsert(policy: .mergeByPropertyStoreTrump) == .adoptTheirs)
        #expect(RowMerge.resolveInsert(policy: .rollback) == .adoptTheirs)
    }

    @Test func onlyErrorRefusesDeletingAChangedRowOrUpdatingADeletedOne() {
        for policy: MergePolicy in [.mergeByPropertyObjectTrump, .mergeByPropertyStoreTrump, .overwrite, .rollback] {
            #expect(RowMerge.deletesChangedRow(policy: policy))
            #expect(!RowMerge.refusesUpdateOfDeletedRow(policy: policy))
        }
        #expect(!RowMerge.deletesChangedRow(policy: .error))
        #expect(RowMerge.refusesUpdateOfDeletedRow(policy: .error))
    }
}
