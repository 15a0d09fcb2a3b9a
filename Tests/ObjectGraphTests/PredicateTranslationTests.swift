import Foundation
import Testing
@testable import ObjectGraph

// Each test translates a #Predicate, runs the SQL against the fixture's SQLite tables, and
// checks both which rows come back and (inside `fixture.invoices` & co.) that they are exactly
// the objects for which Swift's `predicate.evaluate(_:)` is true. See PredicateTranslationFixture.swift
// for the data set.

@Suite struct PredicateTranslationComparisonTests {
    private typealias Invoice = PredicateTestModel.Invoice
    private typealias Client = PredicateTestModel.Client
    private typealias Tag = PredicateTestModel.Tag
    private typealias InvoiceStatus = PredicateTestModel.InvoiceStatus
    private typealias Priority = PredicateTestModel.Priority

    @Test func equalityOnStringAttributeSelectsMatchingRows() throws {
        // Given
        let fixture = try PredicateFixture()
        // When
        let rows = try fixture.invoices(#Predicate { $0.number == "INV-002" })
        // Then
        #expect(rows == ["INV-002"])
    }

    @Test func inequalityOnOptionalAttributeAlsoSelectsNilRowsLikeSwift() throws {
        // Given: INV-002 has no note; in Swift nil != "Rush" is true
        let fixture = try PredicateFixture()
        // When
        let notEqual = try fixture.invoices(#Predicate { $0.note != "Rush" })
        let negatedEqual = try fixture.invoices(#Predicate { !($0.note == "Rush") })
        // Then
        let allButRush = ["INV-002", "INV-003", "inv-004", "INV-005", "ÉCOLE-006", "INV-007", "X"]
        #expect(notEqual == allButRush)
        #expect(negatedEqual == allButRush)
    }

    @Test func nilComparisonsSelectRowsWithAndWithoutValues() throws {
        // Given
        let fixture = try PredicateFixture()
        // When
        let noNote = try fixture.invoices(#Predicate { $0.note == nil })
        let withDue = try fixture.invoices(#Predicate { $0.due != nil })
        let noClient = try fixture.invoices(#Predicate { $0.client == nil })
        // Then
        #expect(noNote == ["INV-002"])
        #expect(withDue == ["INV-001", "INV-003", "INV-005", "X"])
        #expect(noClient == ["inv-004"])
    }

    @Test func orderingComparisonsOnIntegersAndDoublesIncludeNegatives() throws {
        // Given
        let fixture = try PredicateFixture()
        // When
        let quantities = try fixture.invoices(#Predicate { $0.quantity > 0 && $0.quantity <= 7 })
        let negativeWeight = try fixture.invoices(#Predicate { $0.weight < 0 })
        let heavy = try fixture.invoices(#Predicate { $0.weight >= 1e6 })
        // Then
        #expect(quantities == ["INV-001", "INV-005", "INV-007", "X"])
        #expect(negativeWeight == ["INV-002"])
        #expect(heavy == ["inv-004"])
    }

    @Test func decimalEqualityMatchesEqualValuesWrittenDifferently() throws {
        // Given: amounts 10.5 and 10.50, discounts 0.10 and 0.1
        let fixture = try PredicateFixture()
        let tenFifty = PredicateFixture.decimal("10.50"), pointOne = PredicateFixture.decimal("0.1")
        // When
        let amounts = try fixture.invoices(#Predicate { $0.amount == tenFifty })
        let discounts = try fixture.invoices(#Predicate { $0.discount == pointOne })
        // Then
        #expect(amounts == ["INV-002", "INV-003"])
        #expect(discounts == ["INV-001"])
    }

    @Test func decimalOrderingComparesNumbersNotText() throws {
        // Given: as text "9" > "10.5" and "100" < "9"
        let fixture = try PredicateFixture()
        let nine = PredicateFixture.decimal("9"), zero = PredicateFixture.decimal("0")
        // When
        let above = try fixture.invoices(#Predicate { $0.amount > nine })
        let atMostZero = try fixture.invoices(#Predicate { $0.amount <= zero })
        // Then
        #expect(above == ["INV-002", "INV-003", "INV-007", "X"])
        #expect(atMostZero == ["inv-004", "ÉCOLE-006"])
    }

    @Test func dateComparisonsUseTheStoredInstant() throws {
        // Given
        let fixture = try PredicateFixture()
        let cutoff = PredicateFixture.day("2024-01-15"), march = PredicateFixture.day("2024-03-01")
        // When
        let before = try fixture.invoices(#Predicate { $0.issued < cutoff })
        let onDay = try fixture.invoices(#Predicate { $0.issued == march })
        let dueOnIssue = try fixture.invoices(#Predicate { ($0.due ?? $0.issued) == $0.issued })
        // Then
        #expect(before == ["INV-003", "ÉCOLE-006"])
        #expect(onDay == ["INV-002", "X"])
        #expect(dueOnIssue == ["INV-002", "inv-004", "ÉCOLE-006", "INV-007", "X"])
    }

    @Test func stringOrderingIsByCodePointLikeSwift() throws {
        // Given: lower case and accented letters sort after upper-case ASCII
        let fixture = try PredicateFixture()
        // When
        let before = try fixture.invoices(#Predicate { $0.number < "INV-003" })
        let after = try fixture.invoices(#Predicate { $0.number > "Z" })
        // Then
        #expect(before == ["INV-001", "INV-002"])
        #expect(after == ["inv-004", "ÉCOLE-006"])
    }

    @Test func booleanAttributesWorkBareNegatedAndCompared() throws {
        // Given: isDisputed is nil for INV-001, inv-004, INV-005, INV-007
        let fixture = try PredicateFixture()
        // When
        let paid = try fixture.invoices(#Predicate { $0.isPaid })
        let unpaid = try fixture.invoices(#Predicate { !$0.isPaid })
        let comparedFalse = try fixture.invoices(#Predicate { $0.isPaid == false })
        let disputed = try fixture.invoices(#Predicate { $0.isDisputed == true })
        let notDisputed = try fixture.invoices(#Predicate { $0.isDisputed != true })
        // Then
        #expect(paid == ["INV-001", "inv-004", "ÉCOLE-006"])
        #expect(unpaid == ["INV-002", "INV-003", "INV-005", "INV-007", "X"])
        #expect(comparedFalse == unpaid)
        #expect(disputed == ["INV-002", "X"])
        #expect(notDisputed == ["INV-001", "INV-003", "inv-004", "INV-005", "ÉCOLE-006", "INV-007"])
    }

    @Test func enumValuesBindTheirRawValue() throws {
        // Given
        let fixture = try PredicateFixture()
        let paid = InvoiceStatus.paid, high = Priority.high
        let open = [InvoiceStatus.sent, .void]
        // When
        let paidRows = try fixture.invoices(#Predicate { $0.status == paid })
        let highRows = try fixture.invoices(#Predicate { $0.priority == high })
        let draftRows = try fixture.invoices(#Predicate { $0.status.rawValue == "draft" })
        let openRows = try fixture.invoices(#Predicate { open.contains($0.status) })
        // Then
        #expect(paidRows == ["INV-001", "ÉCOLE-006"])
        #expect(highRows == ["INV-001", "INV-005"])
        #expect(draftRows == ["INV-002", "INV-007"])
        #expect(openRows == ["INV-003", "inv-004", "INV-005", "X"])
    }

    @Test func uuidAndDataAttributesCompareByValue() throws {
        // Given
        let fixture = try PredicateFixture()
        let token = fixture.invoices[2].token
        let deadBeef = Data([0xDE, 0xAD]), de = Data([0xDE]), ad = Data([0xAD])
        // When
        let byToken = try fixture.invoices(#Predicate { $0.token == token })
        let beforeToken = try fixture.invoices(#Predicate { $0.token < token })
        let byPayload = try fixture.invoices(#Predicate { $0.payload == deadBeef })
        let prefixed = try fixture.invoices(#Predicate { $0.payload.starts(with: de) })
        let containing = try fixture.invoices(#Predicate { $0.payload.contains(ad) })
        let empty = try fixture.invoices(#Predicate { $0.payload.isEmpty })
        let twoBytes = try fixture.invoices(#Predicate { $0.payload.count == 2 })
        // Then
        #expect(byToken == ["INV-003"])
        #expect(beforeToken == ["INV-001", "INV-002"])
        #expect(byPayload == ["INV-001"])
        #expect(prefixed == ["INV-001", "inv-004"])
        #expect(containing == ["INV-001", "INV-007"])
        #expect(empty == ["INV-002", "INV-003", "INV-005", "ÉCOLE-006", "X"])
        #expect(twoBytes == ["INV-001"])
    }
}

@Suite struct PredicateTranslationLogicTests {
    private typealias Invoice = PredicateTestModel.Invoice
    private typealias Client = PredicateTestModel.Client
    private typealias Tag = PredicateTestModel.Tag
    private typealias InvoiceStatus = PredicateTestModel.InvoiceStatus
    private typealias Priority = PredicateTestModel.Priority

    @Test func conjunctionDisjunctionAndNegationCombine() throws {
        // Given
        let fixture = try PredicateFixture()
        // When
        let rows = try fixture.invoices(#Predicate {
            ($0.isPaid || $0.quantity > 6) && !($0.note == nil || $0.number == "INV-001")
        })
        // Then
        #expect(rows == ["inv-004", "INV-005", "ÉCOLE-006"])
    }

    @Test func constantPredicatesSelectAllOrNothing() throws {
        // Given
        let fixture = try PredicateFixture()
        // When
        let all = try fixture.invoices(#Predicate { _ in true })
        let none = try fixture.invoices(#Predicate { _ in false })
        // Then
        #expect(all.count == 8)
        #expect(none == [])
    }

    @Test func nilCoalescingDefaultsNilValues() throws {
        // Given
        let fixture = try PredicateFixture()
        // When
        let blankNotes = try fixture.invoices(#Predicate { ($0.note ?? "") == "" })
        let lowRates = try fixture.invoices(#Predicate { ($0.rate ?? 0) < 0.5 })
        // Then
        #expect(blankNotes == ["INV-002", "INV-003"])
        #expect(lowRates == ["INV-001", "INV-002", "inv-004", "INV-005", "ÉCOLE-006", "X"])
    }

    @Test func membershipInCapturedArraysBecomesIn() throws {
        // Given
        let fixture = try PredicateFixture()
        let numbers = ["INV-001", "X", "nope"], none: [String] = []
        let notes: [String?] = [nil, "Rush"], rush: [String?] = ["Rush"]
        // When
        let listed = try fixture.invoices(#Predicate { numbers.contains($0.number) })
        let fromEmpty = try fixture.invoices(#Predicate { none.contains($0.number) })
        let nilListed = try fixture.invoices(#Predicate { notes.contains($0.note) })
        let notListed = try fixture.invoices(#Predicate { !rush.contains($0.note) })
        // Then
        #expect(listed == ["INV-001", "X"])
        #expect(fromEmpty == [])
        #expect(nilListed == ["INV-001", "INV-002"])
        #expect(notListed == ["INV-002", "INV-003", "inv-004", "INV-005", "ÉCOLE-006", "INV-007", "X"])
    }

    @Test func arithmeticOnIntegersAndDoublesFollowsSwift() throws {
        // Given: quantity -2 checks the signs of / and %
        let fixture = try PredicateFixture()
        // When
        let scaled = try fixture.invoices(#Predicate { $0.quantity * 2 + 1 > 10 })
        let light = try fixture.invoices(#Predicate { $0.weight * 2.0 < 1.0 })
        let halved = try fixture.invoices(#Predicate { $0.quantity / 2 == -1 })
        let remainderOne = try fixture.invoices(#Predicate { $0.quantity % 3 == 1 })
        let negativeRemainder = try fixture.invoices(#Predicate { $0.quantity % 3 == -2 })
        let negated = try fixture.invoices(#Predicate { -$0.quantity > 0 })
        let divided = try fixture.invoices(#Predicate { $0.weight / 2.0 >= 1.0 })
        // Then
        #expect(scaled == ["inv-004", "INV-005", "ÉCOLE-006", "X"])
        #expect(light == ["INV-002", "INV-003", "ÉCOLE-006"])
        #expect(halved == ["INV-002"])
        #expect(remainderOne == ["inv-004", "INV-005", "INV-007"])
        #expect(negativeRemainder == ["INV-002"])
        #expect(negated == ["INV-002"])
        #expect(divided == ["inv-004", "INV-005", "INV-007", "X"])
    }

    @Test func conditionalExpressionChoosesPerRow() throws {
        // Given
        let fixture = try PredicateFixture()
        // When
        let rows = try fixture.invoices(#Predicate { ($0.isPaid ? $0.quantity : 0) > 2 })
        // Then
        #expect(rows == ["INV-001", "inv-004", "ÉCOLE-006"])
    }

    @Test func expressionsOfCapturedValuesAreComputedOnceInSwift() throws {
        // Given: captured values; SQL has no max() or exact Decimal +, and needs none here
        let fixture = try PredicateFixture()
        let limits = PredicateTestModel.Limits(minimum: 5, numbers: ["X", "INV-003"])
        let quantities = [1, 3, 5]
        let price = PredicateFixture.decimal("10.45"), fee = PredicateFixture.decimal("0.05")
        // When
        let atLeast = try fixture.invoices(#Predicate { $0.quantity >= limits.minimum })
        let listed = try fixture.invoices(#Predicate { limits.numbers.contains($0.number) })
        let largest = try fixture.invoices(#Predicate { $0.quantity == quantities.max()! })
        let total = try fixture.invoices(#Predicate { $0.amount == price + fee })
        // Then
        #expect(atLeast == ["inv-004", "INV-005", "ÉCOLE-006", "X"])
        #expect(listed == ["INV-003", "X"])
        #expect(largest == ["X"])
        #expect(total == ["INV-002", "INV-003"])
    }

    @Test func rangeContainsTestsBothBounds() throws {
        // Given
        let fixture = try PredicateFixture()
        let low = PredicateFixture.decimal("0"), high = PredicateFixture.decimal("10.5")
        let winter = PredicateFixture.day("2024-01-01")...PredicateFixture.day("2024-02-29")
        // When
        let amounts = try fixture.invoices(#Predicate { (low...high).contains($0.amount) })
        let quantities = try fixture.invoices(#Predicate { (1..<7).contains($0.quantity) })
        let issued = try fixture.invoices(#Predicate { winter.contains($0.issued) })
        // Then
        #expect(amounts == ["INV-001", "INV-002", "INV-003", "INV-005", "ÉCOLE-006"])
        #expect(quantities == ["INV-001", "INV-007", "X"])
        #expect(issued == ["INV-001", "INV-005", "ÉCOLE-006"])
    }
}
