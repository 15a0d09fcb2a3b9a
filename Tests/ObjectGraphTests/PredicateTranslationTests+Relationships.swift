import Foundation
import Testing
@testable import ObjectGraph

// Strings, relationships (to-one chains, to-many and many-to-many), the generated SQL's shape,
// documented differences and errors. Same fixture and checks as PredicateTranslationTests.swift.

@Suite struct PredicateTranslationStringTests {
    private typealias Invoice = PredicateTestModel.Invoice
    private typealias Client = PredicateTestModel.Client
    private typealias Tag = PredicateTestModel.Tag
    private typealias InvoiceStatus = PredicateTestModel.InvoiceStatus
    private typealias Priority = PredicateTestModel.Priority

    @Test func containsIsCaseSensitiveAndMatchesTheEmptyString() throws {
        // Given
        let fixture = try PredicateFixture()
        // When
        let lower = try fixture.invoices(#Predicate { $0.number.contains("inv") })
        let empty = try fixture.invoices(#Predicate { $0.number.contains("") })
        // Then
        #expect(lower == ["inv-004"])
        #expect(empty.count == 8)
    }

    @Test func containsTreatsPercentAndUnderscoreLiterally() throws {
        // Given: only INV-005's note has % and _; LIKE would read them as wildcards
        let fixture = try PredicateFixture()
        // When
        let percent = try fixture.invoices(#Predicate { $0.note?.contains("0% o") == true })
        let wildcardLookalike = try fixture.invoices(#Predicate { $0.note?.contains("5_%") == true })
        let underscore = try fixture.invoices(#Predicate { $0.number.contains("_") })
        // Then
        #expect(percent == ["INV-005"])
        #expect(wildcardLookalike == [])
        #expect(underscore == [])
    }

    @Test func startsWithMatchesPrefixesCaseSensitively() throws {
        // Given
        let fixture = try PredicateFixture()
        // When
        let prefixed = try fixture.invoices(#Predicate { $0.number.starts(with: "INV") })
        let accented = try fixture.invoices(#Predicate { $0.number.starts(with: "É") })
        let empty = try fixture.invoices(#Predicate { $0.number.starts(with: "") })
        // Then
        #expect(prefixed == ["INV-001", "INV-002", "INV-003", "INV-005", "INV-007"])
        #expect(accented == ["ÉCOLE-006"])
        #expect(empty.count == 8)
    }

    @Test func unicodeTextMatchesIncludingDecomposedLiterals() throws {
        // Given: the stored note is NFC; the second literal spells é as e + combining accent
        let fixture = try PredicateFixture()
        // When
        let composed = try fixture.invoices(#Predicate { $0.note == "Café crème" })
        let decomposed = try fixture.invoices(#Predicate { $0.note == "Cafe\u{301} crème" })
        let emoji = try fixture.invoices(#Predicate { $0.note?.contains("👍🏽") == true })
        let japanese = try fixture.invoices(#Predicate { $0.note?.contains("本語") == true })
        // Then
        #expect(composed == ["inv-004"])
        #expect(decomposed == ["inv-004"])
        #expect(emoji == ["INV-007"])
        #expect(japanese == ["ÉCOLE-006"])
    }

    @Test func localizedStandardContainsIgnoresASCIICase() throws {
        // Given
        let fixture = try PredicateFixture()
        // When
        let rows = try fixture.invoices(#Predicate { $0.number.localizedStandardContains("inv") })
        let clients = try fixture.clients(#Predicate { $0.name.localizedStandardContains("ACME") })
        // Then
        #expect(rows == ["INV-001", "INV-002", "INV-003", "inv-004", "INV-005", "INV-007"])
        #expect(clients == ["Acme"])
    }

    @Test func localizedStandardContainsFoldsOnlyASCIIInSQL() throws {
        // Given: Swift ignores diacritics ("ecole" finds "ÉCOLE"); SQLite's lower() does not
        let fixture = try PredicateFixture()
        // When
        let (sql, swift) = try fixture.selections(
            #Predicate<Invoice> { $0.number.localizedStandardContains("ecole") }, in: fixture.invoices)
        // Then: a documented difference, pinned so a change of either side is noticed
        #expect(swift == ["ÉCOLE-006"])
        #expect(sql == [])
    }

    @Test func containsSplittingAGraphemeClusterDiffersInSQL() throws {
        // Given: "👍🏽" is one Character in Swift, two code points in SQLite
        let fixture = try PredicateFixture()
        // When
        let (sql, swift) = try fixture.selections(
            #Predicate<Invoice> { $0.note?.contains("👍") == true }, in: fixture.invoices)
        // Then: a documented difference, pinned so a change of either side is noticed
        #expect(swift == [])
        #expect(sql == ["INV-007"])
    }
}

@Suite struct PredicateTranslationRelationshipTests {
    private typealias Invoice = PredicateTestModel.Invoice
    private typealias Client = PredicateTestModel.Client
    private typealias Tag = PredicateTestModel.Tag
    private typealias InvoiceStatus = PredicateTestModel.InvoiceStatus
    private typealias Priority = PredicateTestModel.Priority

    @Test func optionalChainingThroughToOneComparesTheRelatedRow() throws {
        // Given: inv-004 has no client, so its client?.name is nil
        let fixture = try PredicateFixture()
        // When
        let acme = try fixture.invoices(#Predicate { $0.client?.name == "Acme" })
        let notAcme = try fixture.invoices(#Predicate { $0.client?.name != "Acme" })
        // Then
        #expect(acme == ["INV-001", "INV-002", "INV-007"])
        #expect(notAcme == ["INV-003", "inv-004", "INV-005", "ÉCOLE-006", "X"])
    }

    @Test func toOneComparisonUsesACorrelatedSubquery() throws {
        // Given
        let fixture = try PredicateFixture()
        // When
        let fragment = try fixture.translate(#Predicate<Invoice> { $0.client?.name == "Acme" })
        // Then
        #expect(fragment.sql.contains(#"(SELECT t1."name" FROM "Client" t1 WHERE t1._pk = t0."client")"#))
        #expect(fragment.bindings == [.string("Acme")])
    }

    @Test func twoHopChainsAndNilAnywhereOnTheChain() throws {
        // Given: Globex has no company, inv-004 no client
        let fixture = try PredicateFixture()
        // When
        let initrode = try fixture.invoices(#Predicate { $0.client?.company?.name == "Initrode" })
        let noCompany = try fixture.invoices(#Predicate { $0.client?.company == nil })
        let noEmail = try fixture.invoices(#Predicate { $0.client?.email == nil })
        let blankEmail = try fixture.invoices(#Predicate { $0.client?.email?.isEmpty == true })
        // Then
        #expect(initrode == ["INV-005", "ÉCOLE-006"])
        #expect(noCompany == ["INV-003", "inv-004", "X"])
        #expect(noEmail == ["INV-003", "inv-004", "X"])
        #expect(blankEmail == ["INV-005", "ÉCOLE-006"])
    }

    @Test func flatMapClosureAndForcedUnwrapReachTheRelatedRow() throws {
        // Given
        let fixture = try PredicateFixture()
        // When
        let inactive = try fixture.invoices(#Predicate { $0.client.flatMap { client in client.isActive } == false })
        let active = try fixture.invoices(#Predicate { $0.client != nil && $0.client!.isActive })
        // Then
        #expect(inactive == ["INV-003", "X"])
        #expect(active == ["INV-001", "INV-002", "INV-005", "ÉCOLE-006", "INV-007"])
    }

    @Test func toManyCountAndIsEmptyCountRelatedRows() throws {
        // Given: Acme has 3 invoices, Globex and Initech 2, Umbrella none
        let fixture = try PredicateFixture()
        // When
        let several = try fixture.clients(#Predicate { $0.invoices.count >= 2 })
        let none = try fixture.clients(#Predicate { $0.invoices.count == 0 })
        let empty = try fixture.clients(#Predicate { $0.invoices.isEmpty })
        let fragment = try fixture.translate(#Predicate<Client> { $0.invoices.count >= 2 })
        // Then
        #expect(several == ["Acme", "Globex", "Initech"])
        #expect(none == ["Umbrella"])
        #expect(empty == ["Umbrella"])
        #expect(fragment.sql.contains(#"(SELECT COUNT(*) FROM "Invoice" t1 WHERE t1."client" = t0._pk)"#))
    }

    @Test func toManyContainsWhereAllSatisfyAndFilter() throws {
        // Given
        let fixture = try PredicateFixture()
        let hundred = PredicateFixture.decimal("100"), sent = InvoiceStatus.sent
        // When
        let anyPaid = try fixture.clients(#Predicate { $0.invoices.contains { $0.isPaid } })
        let anyLarge = try fixture.clients(#Predicate { $0.invoices.contains { $0.amount > hundred } })
        let allUnpaid = try fixture.clients(#Predicate { $0.invoices.allSatisfy { $0.isPaid == false } })
        let twoSent = try fixture.clients(#Predicate { $0.invoices.filter { $0.status == sent }.count == 2 })
        // Then
        #expect(anyPaid == ["Acme", "Initech"])
        #expect(anyLarge == ["Acme"])
        #expect(allUnpaid == ["Globex", "Umbrella"])
        #expect(twoSent == ["Globex"])
    }

    @Test func filteredToManyIsEmptyWhenNoMemberPasses() throws {
        // Given
        let fixture = try PredicateFixture()
        // When
        let rows = try fixture.clients(#Predicate { $0.invoices.filter { $0.isPaid }.isEmpty })
        // Then
        #expect(rows == ["Globex", "Umbrella"])
    }

    @Test func manyToManyThroughJoinTableAndNestedSubqueries() throws {
        // Given: urgent tags INV-001 and INV-005, archived INV-005 and INV-007
        let fixture = try PredicateFixture()
        // When
        let archived = try fixture.invoices(#Predicate { $0.tags.contains { $0.name == "archived" } })
        let pairs = try fixture.tags(#Predicate { $0.invoices.count == 2 })
        let unused = try fixture.tags(#Predicate { $0.invoices.isEmpty })
        let urgentClients = try fixture.clients(#Predicate {
            $0.invoices.contains { $0.tags.contains { $0.name == "urgent" } }
        })
        // Then
        #expect(archived == ["INV-005", "INV-007"])
        #expect(pairs == ["urgent", "archived"])
        #expect(unused == ["unused"])
        #expect(urgentClients == ["Acme", "Initech"])
    }

    @Test func toManyCountThroughOptionalToOne() throws {
        // Given: inv-004 has no client, so the count defaults to 0
        let fixture = try PredicateFixture()
        // When
        let rows = try fixture.invoices(#Predicate { ($0.client?.invoices.count ?? 0) == 2 })
        // Then
        #expect(rows == ["INV-003", "INV-005", "ÉCOLE-006", "X"])
    }
}

@Suite struct PredicateTranslationErrorTests {
    private typealias Invoice = PredicateTestModel.Invoice
    private typealias Client = PredicateTestModel.Client
    private typealias Tag = PredicateTestModel.Tag
    private typealias InvoiceStatus = PredicateTestModel.InvoiceStatus
    private typealias Priority = PredicateTestModel.Priority

    @Test func computedPropertyIsAnUnknownKeyPathNamingIt() throws {
        // Given
        let fixture = try PredicateFixture()
        // When / Then
        #expect(throws: PredicateTranslationError.unknownKeyPath(
            keyPath: "\\Invoice.<computed Bool property>", entity: "Invoice")) {
            try fixture.translate(#Predicate<Invoice> { $0.isLarge })
        }
    }

    @Test func decimalArithmeticIsRefusedNamingTheExpression() throws {
        // Given
        let fixture = try PredicateFixture()
        let one = PredicateFixture.decimal("1"), ten = PredicateFixture.decimal("10")
        // When
        let error = #expect(throws: PredicateTranslationError.self) {
            try fixture.translate(#Predicate<Invoice> { $0.amount + one > ten })
        }
        // Then
        #expect(error?.description.hasPrefix("PredicateExpressions.Arithmetic is not translatable to SQL") == true)
    }

    @Test func expressionWithoutSQLFormIsRefusedNamingItsType() throws {
        // Given
        let fixture = try PredicateFixture()
        // When
        let error = #expect(throws: PredicateTranslationError.self) {
            try fixture.translate(#Predicate<Invoice> { $0.number.contains(/INV-[0-9]+/) })
        }
        // Then
        #expect(error == .unsupportedExpression(
            description: "PredicateExpressions.StringContainsRegex is not translatable to SQL."))
    }

    @Test func rawValueOfEnumWithoutCasesListIsRefused() throws {
        // Given: Priority is not CaseIterable, so its rawValue key path cannot be recognized
        let fixture = try PredicateFixture()
        // When
        let error = #expect(throws: PredicateTranslationError.self) {
            try fixture.translate(#Predicate<Invoice> { $0.priority.rawValue == 2 })
        }
        // Then
        #expect(error?.description.contains("rawValue of a CaseIterable enum") == true)
    }

    @Test func characterCountOfStringIsRefusedWithTheReason() throws {
        // Given
        let fixture = try PredicateFixture()
        // When
        let error = #expect(throws: PredicateTranslationError.self) {
            try fixture.translate(#Predicate<Invoice> { $0.number.count > 3 })
        }
        // Then
        #expect(error?.description.contains("Swift counts characters") == true)
    }
}
