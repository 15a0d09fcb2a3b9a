import Foundation
import ObjectGraph
import Testing
@testable import InvoicesApp

/// The save chain from form to file under contention: sibling forms racing on a unique
/// value, and deferred persistence meeting a conflict or a duplicate at its flush.
@Suite(.serialized) struct SaveChainTests {
    /// The form fields of a new invoice of `client` numbered `number`.
    private static func invoiceFields(_ csrf: String, number: String, client: Int64) -> [(String, String)] {
        [("csrf", csrf), ("identifier", number), ("client", String(client)), ("line-0-description", "Work"), ("line-0-quantity", "1"), ("line-0-unitPrice", "10.00"), ("line-0-taxRate", "0"), ("currency", "EUR"),
         ("status", "draft"), ("issueDate", "2025-06-01"), ("dueDate", "2025-07-01"), ("action", "save")]
    }

    @Test func ofSixFormsSavingOneInvoiceNumberAtOnceOneIsSavedAndFiveAreToldItIsTaken() async throws {
        try await withDashboard { app in
            let acme = try await clientID("Acme Corp", visitor: app.visitor())
            for round in 0..<12 {
                let number = "RACE-\(round)"
                var forms: [(Visitor, String, String)] = []
                for _ in 0..<6 {
                    let visitor = app.visitor()
                    let (path, page) = try await visitor.openForm("/invoices/new?client=\(acme)")
                    forms.append((visitor, path, try #require(page.csrf)))
                }
                let answers = try await withThrowingTaskGroup(of: (Int, Bool).self) { group in
                    for (visitor, path, csrf) in forms {
                        group.addTask {
                            let response = try await visitor.post(path, Self.invoiceFields(csrf, number: number, client: acme))
                            return (response.status, response.text.contains("Another invoice already has this number"))
                        }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
                #expect(answers.map(\.0).sorted() == [303, 422, 422, 422, 422, 422], "round \(round): \(answers)")
                #expect(answers.filter { $0.0 == 422 }.allSatisfy { $0.1 })
                #expect(try await invoiceCount(number, at: app.databaseURL) == 1)
            }
            // The server saves on afterwards, and main and the writer hold nothing left over.
            let visitor = app.visitor()
            let (path, page) = try await visitor.openForm("/invoices/new?client=\(acme)")
            let saved = try await visitor.post(path, Self.invoiceFields(try #require(page.csrf), number: "AFTER", client: acme))
            #expect(saved.status == 303)
            let stack = app.stack
            #expect(await stack.main.perform { stack.main.hasChanges } == false)
            #expect(await stack.writer.perform { stack.writer.hasChanges } == false)
        }
    }

    @Test func aDeferredSaveMeetingAnImportOfTheSameNumberIsSetAsideShownAndNamedAtStop() async throws {
        let url = try await seededDatabase()
        let server = try await ServeProcess(database: url, options: ["--persist", "deferred=3"])
        let visitor = server.visitor()
        let acme = try await clientID("Acme Corp", visitor: visitor)
        let (path, page) = try await visitor.openForm("/invoices/new?client=\(acme)")
        let saved = try await visitor.post(path, Self.invoiceFields(try #require(page.csrf), number: "DUP-1", client: acme))
        #expect(saved.status == 303)
        let invoicePage = try #require(saved.header("Location"))

        // Another process imports the same number before the writer's flush.
        let csv = TestFiles.folder().appendingPathComponent("dup.csv")
        try Data("""
            client_name,client_email,identifier,amount,currency,status,issue_date,due_date
            Importer Co,importer@example.com,DUP-1,5.00,EUR,sent,2025-06-01,2025-07-01

            """.utf8).write(to: csv)
        let invoices = try #require(ChildProcess.executable("invoices"))
        let imported = try await ChildProcess.run(invoices, ["import", csv.path, "--db", url.path])
        #expect(imported.status == 0, "\(imported.standardError)")

        // The flush sets the form's invoice aside; nothing after it is blocked.
        let (snapshot, setAside) = try await visitor.inspectorSnapshot(within: .seconds(10)) {
            !$0.notOnDisk.setAside.isEmpty
        }
        #expect(setAside)
        let change = try #require(snapshot.notOnDisk.setAside.first)
        #expect(invoicePage.hasSuffix("/" + (change.object.split(separator: "p").last.map(String.init) ?? "?")))
        #expect(change.reason.contains("identifier"))
        let (betaPath, betaCSRF) = try await visitor.editClient("Beta Ltd", applying: [("name", "Beta After")])
        #expect(try await visitor.post(betaPath, [("csrf", betaCSRF), ("action", "save")]).status == 303)
        let betaOnDisk = try await Self.eventually(within: .seconds(8)) { try await clientsOnDisk(url)["Beta After"] != nil }
        #expect(betaOnDisk)

        // The invoice's page is the set-aside change's page; the inspector says where it is.
        let shown = try await visitor.get(invoicePage)
        #expect(shown.status == 303 && shown.header("Location") == change.link)
        let details = try await visitor.get(change.link)
        #expect(details.status == 200 && details.text.contains("not on disk") && details.text.contains("DUP-1"))
        #expect(try await visitor.get("/contexts.md").text.contains("not on disk: conflict"))

        let stopped = await server.stop()
        #expect(stopped.status != 0)
        #expect(stopped.printed.contains("NOT on disk"))
        #expect(stopped.printed.contains(change.object))
        #expect(!stopped.printed.contains("all changes are on disk"))
    }

    @Test func aDeferredConflictIsSetAsideShownResolvedFromThePageAndLaterSavesFlow() async throws {
        try await withDashboard(persist: .deferred(seconds: 1)) { app in
            let visitor = app.visitor()
            let acme = try await clientID("Acme Corp", visitor: visitor)
            let (path, csrf) = try await visitor.editClient("Acme Corp", applying: [("name", "Acme by visitor")])
            #expect(try await visitor.post(path, [("csrf", csrf), ("action", "save")]).status == 303)
            // Another coordinator on the file renames Acme before the flush.
            try await Self.rename(acme, to: "Acme elsewhere", in: app.databaseURL)

            let setAside = try await Self.eventually(within: .seconds(8)) { !app.stack.setAsideChanges.isEmpty }
            #expect(setAside)
            let (betaPath, betaCSRF) = try await visitor.editClient("Beta Ltd", applying: [("name", "Beta Later")])
            #expect(try await visitor.post(betaPath, [("csrf", betaCSRF), ("action", "save")]).status == 303)
            let betaOnDisk = try await Self.eventually(within: .seconds(5)) {
                try await clientsOnDisk(app.databaseURL)["Beta Later"] != nil
            }
            #expect(betaOnDisk)

            let snapshot = try await visitor.inspectorSnapshot()
            let change = try #require(snapshot.notOnDisk.setAside.first)
            #expect(change.object == "Client/p\(acme)")
            let name = try #require(change.properties.first { $0.name == "name" })
            #expect(name.base == "Acme Corp" && name.theirs == "Acme elsewhere" && name.yours == "Acme by visitor")
            let clientPage = try await visitor.get("/clients/\(acme)")
            #expect(clientPage.text.contains("Not on disk") && clientPage.text.contains("Acme by visitor"))
            #expect(clientPage.text.contains("Acme elsewhere"))

            // Resolved from the page: the form shows the conflict, keep mine saves it.
            let details = try await visitor.get(change.link)
            let conflict = try await visitor.post(change.link, [("csrf", try #require(details.csrf)), ("action", "resolve")])
            #expect(conflict.status == 409)
            #expect(conflict.text.contains("Acme Corp") && conflict.text.contains("Acme elsewhere")
                    && conflict.text.contains("Acme by visitor"))
            let formPath = try #require(conflict.text.firstMatch(of: /action="(\/forms\/[0-9a-f]+)"/).map { String($0.1) })
            let kept = try await visitor.post(formPath, [("csrf", try #require(conflict.csrf)), ("action", "keep-mine")])
            #expect(kept.status == 303)
            #expect(app.stack.setAsideChanges.isEmpty)
            let resolvedOnDisk = try await Self.eventually(within: .seconds(5)) {
                try await clientsOnDisk(app.databaseURL)["Acme by visitor"] != nil
            }
            #expect(resolvedOnDisk)
            #expect(await app.server.stop().isEmpty)
        }
    }

    @Test func aSetAsideChangeCanBeDiscarded() async throws {
        try await withDashboard(persist: .deferred(seconds: 0.5)) { app in
            let visitor = app.visitor()
            let acme = try await clientID("Acme Corp", visitor: visitor)
            let (path, csrf) = try await visitor.editClient("Acme Corp", applying: [("city", "Bern")])
            #expect(try await visitor.post(path, [("csrf", csrf), ("action", "save")]).status == 303)
            try await Self.moveAcme(acme, to: "Genève", in: app.databaseURL)
            let setAside = try await Self.eventually(within: .seconds(8)) { !app.stack.setAsideChanges.isEmpty }
            #expect(setAside)
            let link = try #require(try await visitor.inspectorSnapshot().notOnDisk.setAside.first?.link)
            let details = try await visitor.get(link)
            let discarded = try await visitor.post(link, [("csrf", try #require(details.csrf)), ("action", "discard")])
            #expect(discarded.status == 303 && discarded.header("Location") == "/clients/\(acme)")
            #expect(app.stack.setAsideChanges.isEmpty)
            #expect(try await visitor.get(link).status == 410)
            #expect(try await clientsOnDisk(app.databaseURL)["Acme Corp"] == .some("Genève"))
            #expect(await app.server.stop().isEmpty)
        }
    }

    // MARK: Helpers

    /// Renames a client through a coordinator of its own: another writer of the file.
    private static func rename(_ pk: Int64, to name: String, in url: URL) async throws {
        try await changeClient(pk, in: url) { $0.name = name }
    }

    private static func moveAcme(_ pk: Int64, to city: String, in url: URL) async throws {
        try await changeClient(pk, in: url) { $0.city = city }
    }

    private static func changeClient(_ pk: Int64, in url: URL, _ change: @escaping @Sendable (Client) -> Void) async throws {
        let stack = try InvoicesStack(storeURL: url)
        let context = stack.newImportContext(name: "elsewhere")
        try await context.perform {
            if let client = try context.existingObject(Client.self, primaryKey: pk) { change(client) }
            try context.save()
        }
    }

    /// Polls `condition` until it holds or `limit` passes.
    private static func eventually(within limit: Duration, _ condition: () async throws -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            if try await condition() { return true }
            try await Task.sleep(for: .milliseconds(50))
        }
        return try await condition()
    }
}

/// How many invoices in the file have this number.
func invoiceCount(_ identifier: String, at url: URL) async throws -> Int {
    let stack = try InvoicesStack(storeURL: url)
    let context = stack.newImportContext(name: "disk check")
    return try await context.perform {
        try context.count(for: FetchRequest<Invoice>(predicate: #Predicate { $0.identifier == identifier }))
    }
}
