import Foundation
import ObjectGraph
import Testing

/// A lightweight stage refuses what it cannot carry out exactly: a value that does not
/// convert, text longer than a lowered limit, duplicates under a new uniqueness constraint.
/// The error names the object and the value; the file stays as it was.
@Suite struct LightweightFailureTests {
    /// Migrates a version 1 file holding `products`, expects a failure, checks the file is
    /// untouched, and returns the failure and the primary key of the product titled `culprit`.
    static func failure(with products: [CatalogFiles.Product], culprit: String) async throws -> (MigrationFailure, Int64)? {
        let url = try await CatalogFiles.version1(products)
        defer { StoreFileState.cleanUp(url) }
        let key = try await CatalogFiles.primaryKey(of: culprit, at: url)
        let before = try Data(contentsOf: url)
        let error = #expect(throws: MigrationError.self) { _ = try CatalogFiles.migrate(url) }
        #expect(try Data(contentsOf: url) == before)
        guard case .stageFailed(let failure)? = error else {
            Issue.record("expected stageFailed, got \(String(describing: error))")
            return nil
        }
        return (failure, key)
    }

    @Test func aDoubleThatHasNoExactDecimalIsRefusedNamingTheObjectAndValue() async throws {
        var heavy = CatalogFiles.saw
        heavy.weight = 1e300
        let (failure, key) = try #require(try await Self.failure(with: [CatalogFiles.hammer, heavy], culprit: "Saw"))
        #expect(failure == MigrationFailure(stage: "1 → 2", entity: "Product", primaryKey: key, property: "weight",
                                            value: .double(1e300), reason: .inexactConversion(from: .double, to: .decimal)))
        #expect(failure.description.contains("Product \(key), weight = 1e+300"))
    }

    @Test func textLongerThanALoweredLimitIsRefused() async throws {
        var coded = CatalogFiles.saw
        coded.code = "SAW-LONG-9"
        let (failure, key) = try #require(try await Self.failure(with: [CatalogFiles.hammer, coded], culprit: "Saw"))
        #expect(failure == MigrationFailure(stage: "1 → 2", entity: "Product", primaryKey: key, property: "code",
                                            value: .string("SAW-LONG-9"), reason: .tooLong(maximum: 8)))
    }

    @Test func duplicatesUnderANewUniquenessConstraintAreRefused() async throws {
        var second = CatalogFiles.saw
        second.title = "Hammer"
        let (failure, key) = try #require(try await Self.failure(with: [CatalogFiles.hammer, second], culprit: "Hammer"))
        #expect(failure.entity == "Product")
        #expect(failure.primaryKey == key)
        #expect(failure.property == "name")
        #expect(failure.value == .string("Hammer"))
        #expect(failure.reason == .duplicate(of: key - 1))
    }
}
