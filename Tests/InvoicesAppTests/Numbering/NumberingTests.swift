import Foundation
import ObjectGraph
import Testing
@testable import InvoicesApp

/// Invoices are numbered when they leave draft, per year, without gaps: through the stack's
/// save (a form) and through an import.
@Suite struct NumberingTests {
    /// Saves a scratchpad that makes `count` invoices of `status` issued on `issued`.
    private static func makeInvoices(_ count: Int, status: InvoiceStatus, issued: String,
                                     in stack: InvoicesStack) async throws -> SaveOutcome {
        let scratchpad = stack.newScratchpad(name: "test")
        try await scratchpad.perform {
            let client = try scratchpad.fetch(FetchRequest<Client>()).first ?? scratchpad.makeClient("Acme")
            for _ in 0..<count {
                let invoice = scratchpad.makeInvoice("", client: client, status: status, issued: issued, due: "2099-01-01")
                invoice.identifier = nil
            }
        }
        return await stack.save(scratchpad)
    }

    private static func numbers(in stack: InvoicesStack) async throws -> [String?] {
        try await stack.main.perform {
            // In issue order, numbers in their order on one day, drafts last.
            try stack.main.fetch(FetchRequest<Invoice>()).map { ($0.issueDate, $0.identifier) }
                .sorted { ($0.0, $0.1 ?? "~") < ($1.0, $1.1 ?? "~") }.map(\.1)
        }
    }

    private static func lastNumbers(in stack: InvoicesStack) async throws -> [Int: Int] {
        try await stack.main.perform {
            Dictionary(uniqueKeysWithValues: try stack.main.fetch(FetchRequest<InvoiceSequence>()).map { ($0.year, $0.lastNumber) })
        }
    }

    @Test(arguments: StackStore.all) func aDraftHasNoNumberAndShowsDraft(_ store: StackStore) async throws {
        let stack = try await makeStack(store)
        guard case .saved = try await Self.makeInvoices(1, status: .draft, issued: "2026-03-01", in: stack) else {
            Issue.record("the draft was not saved"); return
        }
        #expect(try await Self.numbers(in: stack) == [nil])
        let summary = try #require(try await stack.invoicePage(InvoiceQuery(), today: day("2026-03-02")).items.first)
        #expect(summary.number == "draft")
        #expect(try await Self.lastNumbers(in: stack).isEmpty)
    }

    @Test(arguments: StackStore.all) func sendingGivesTheYearsNextNumberAndEachYearStartsAtOne(_ store: StackStore) async throws {
        let stack = try await makeStack(store)
        _ = try await Self.makeInvoices(2, status: .sent, issued: "2026-03-01", in: stack)
        _ = try await Self.makeInvoices(1, status: .draft, issued: "2026-03-02", in: stack)
        _ = try await Self.makeInvoices(1, status: .sent, issued: "2027-01-05", in: stack)
        #expect(try await Self.numbers(in: stack) == ["INV-2026-00001", "INV-2026-00002", nil, "INV-2027-00001"])
        #expect(try await Self.lastNumbers(in: stack) == [2026: 2, 2027: 1])

        // The draft is sent: it takes 3, in the same save as its status.
        let scratchpad = stack.newScratchpad(name: "send")
        try await scratchpad.perform {
            let draft = try #require(try scratchpad.fetch(FetchRequest<Invoice>()).first { $0.identifier == nil })
            draft.status = .sent
        }
        guard case .saved = await stack.save(scratchpad) else { Issue.record("sending was not saved"); return }
        #expect(try await Self.numbers(in: stack)[2] == "INV-2026-00003")
        #expect(try await Self.lastNumbers(in: stack)[2026] == 3)
    }

    @Test(arguments: StackStore.all) func aRefusedSaveTakesItsNumberBackSoNoneIsSkipped(_ store: StackStore) async throws {
        let stack = try await makeStack(store)
        let scratchpad = stack.newScratchpad(name: "refused")
        await scratchpad.perform {
            let invoice = scratchpad.makeInvoice("", client: scratchpad.makeClient("Acme"), status: .sent,
                                                 issued: "2026-03-01", due: "2026-02-01")   // due before issue
            invoice.identifier = nil
        }
        guard case .invalid = await stack.save(scratchpad) else { Issue.record("the save was not refused"); return }
        let held = try await scratchpad.perform {
            try scratchpad.fetch(FetchRequest<Invoice>()).map(\.identifier)
        }
        #expect(held == [nil])
        // Fixed, it saves with number 1: the refused attempt used none.
        try await scratchpad.perform {
            try scratchpad.fetch(FetchRequest<Invoice>()).first?.dueDay = day("2026-04-01")
        }
        guard case .saved = await stack.save(scratchpad) else { Issue.record("the fixed save failed"); return }
        #expect(try await Self.numbers(in: stack) == ["INV-2026-00001"])
    }

    @Test(arguments: StackStore.all) func importedNumbersAreKeptAndTheSequenceContinuesAfterThem(_ store: StackStore) async throws {
        let stack = try await makeStack(store)
        let csv = """
            client_name,identifier,amount,currency,status,issue_date
            Acme,INV-2026-00041,10,EUR,sent,2026-02-01
            Acme,,11,EUR,sent,2026-02-02
            Acme,Hand-7,12,EUR,paid,2026-02-03
            Acme,,13,EUR,draft,2026-02-04
            """
        let report = try await stack.importCSV(Data(csv.utf8))
        #expect(report.importedInvoices == 4 && report.skipped.isEmpty, "\(report.lines)")
        #expect(try await Self.numbers(in: stack) == ["INV-2026-00041", "INV-2026-00042", "Hand-7", nil])
        _ = try await Self.makeInvoices(1, status: .sent, issued: "2026-05-01", in: stack)
        #expect(try await Self.numbers(in: stack).last == "INV-2026-00043")
    }

    @Test(arguments: StackStore.all) func aYearNumberedByHandBeforeSequencesStartsAfterItsHighestNumber(_ store: StackStore) async throws {
        // A version 2 file: numbers typed by hand, no sequences yet.
        let stack = try await makeStack(store)
        try await insert(into: stack) { context in
            let acme = context.makeClient("Acme")
            context.makeInvoice("INV-2026-00007", client: acme, status: .sent, issued: "2026-01-10", due: "2026-02-10")
            context.makeInvoice("INV-2026-00003", client: acme, status: .sent, issued: "2026-01-11", due: "2026-02-10")
        }
        #expect(try await Self.lastNumbers(in: stack).isEmpty)
        _ = try await Self.makeInvoices(1, status: .sent, issued: "2026-06-01", in: stack)
        #expect(try await Self.numbers(in: stack).last == "INV-2026-00008")
    }

    @Test(arguments: StackStore.all) func anotherFormatNumbersInItsOwnWay(_ store: StackStore) async throws {
        let stack = try await makeStack(store)
        stack.numbering = InvoiceNumbering(format: try InvoiceNumberFormat("{yy}-{seq:3}"))
        _ = try await Self.makeInvoices(2, status: .sent, issued: "2026-03-01", in: stack)
        #expect(try await Self.numbers(in: stack) == ["26-001", "26-002"])
    }
}
