import Foundation
import Testing
@testable import InvoicesApp

@Suite struct ClientListingTests {
    @Test(arguments: StackStore.all) func theSearchMatchesNamesCaseInsensitively(_ store: StackStore) async throws {
        let stack = try await makeFixtureStack(store)
        let page = try await stack.clientPage(ClientQuery(search: "ACME"))
        #expect(page.items.map(\.name) == ["Acme GmbH", "Acme Labs Inc."])
        #expect(page.totalCount == 2)
    }

    @Test(arguments: StackStore.all) func theSearchMatchesEmailsAndNumbers(_ store: StackStore) async throws {
        let stack = try await makeFixtureStack(store)
        #expect(try await stack.clientPage(ClientQuery(search: "globex.co")).items.map(\.name) == ["Globex Ltd"])
        #expect(try await stack.clientPage(ClientQuery(search: "c-010")).items.map(\.name) == ["Umbrella SA"])
        #expect(try await stack.clientPage(ClientQuery(search: "z-99")).items.map(\.name) == ["Zed Design"])
        #expect(try await stack.clientPage(ClientQuery(search: "nobody")).items.isEmpty)
    }

    @Test(arguments: StackStore.all) func clientsSortByNameInBothDirections(_ store: StackStore) async throws {
        let stack = try await makeFixtureStack(store)
        let names = ["Acme GmbH", "Acme Labs Inc.", "Globex Ltd", "Initech K.K.", "Umbrella SA", "Zed Design"]
        #expect(try await stack.clientPage(ClientQuery()).items.map(\.name) == names)
        #expect(try await stack.clientPage(ClientQuery(sort: .name, descending: true)).items.map(\.name) == names.reversed())
    }

    @Test(arguments: StackStore.all) func clientsSortByAnyColumn(_ store: StackStore) async throws {
        let stack = try await makeFixtureStack(store)
        let byCity = try await stack.clientPage(ClientQuery(sort: .city)).items.compactMap(\.city)
        #expect(byCity == ["Austin", "Berlin", "Genève", "London", "Paris", "Tokyo"])
        let byCreated = try await stack.clientPage(ClientQuery(sort: .createdAt)).items.map(\.name)
        #expect(byCreated == ["Acme Labs Inc.", "Initech K.K.", "Globex Ltd", "Umbrella SA", "Acme GmbH", "Zed Design"])
        let byNumber = try await stack.clientPage(ClientQuery(sort: .number, descending: true)).items.compactMap(\.number)
        #expect(byNumber == ["Z-99", "C-010", "C-004", "C-003", "C-002", "C-001"])
        let byEmail = try await stack.clientPage(ClientQuery(sort: .email)).items.map(\.name)
        #expect(byEmail.first == "Initech K.K.")   // no email sorts first
        let byCountry = try await stack.clientPage(ClientQuery(sort: .country)).items.compactMap(\.country)
        #expect(byCountry == ["France", "Germany", "Japan", "Switzerland", "United Kingdom", "United States"])
    }

    @Test(arguments: StackStore.all) func pagesSplitTheListAndCountEverything(_ store: StackStore) async throws {
        let stack = try await makeFixtureStack(store)
        let first = try await stack.clientPage(ClientQuery(page: 1, pageSize: 4))
        #expect(first.items.map(\.name) == ["Acme GmbH", "Acme Labs Inc.", "Globex Ltd", "Initech K.K."])
        #expect(first.totalCount == 6)
        #expect(first.pageCount == 2)
        #expect(!first.hasPrevious && first.hasNext)
        let second = try await stack.clientPage(ClientQuery(page: 2, pageSize: 4))
        #expect(second.items.map(\.name) == ["Umbrella SA", "Zed Design"])
        #expect(second.firstIndex == 5 && second.lastIndex == 6)
        #expect(second.hasPrevious && !second.hasNext)
    }

    @Test(arguments: StackStore.all) func aPagePastTheEndShowsTheLastPage(_ store: StackStore) async throws {
        let stack = try await makeFixtureStack(store)
        let page = try await stack.clientPage(ClientQuery(page: 9, pageSize: 4))
        #expect(page.page == 2)
        #expect(page.items.count == 2)
    }

    @Test(arguments: StackStore.all) func anEmptyListHasOneEmptyPage(_ store: StackStore) async throws {
        let stack = try await makeStack(store)
        let page = try await stack.clientPage(ClientQuery(page: 3))
        #expect(page.items.isEmpty && page.totalCount == 0 && page.page == 1 && page.pageCount == 1)
    }

    @Test(arguments: StackStore.all) func aClientPageHasItsInvoicesNewestFirst(_ store: StackStore) async throws {
        let stack = try await makeFixtureStack(store)
        let id = try await clientID("Acme GmbH", in: stack)
        let detail = try #require(try await stack.clientDetail(id: id, today: today))
        #expect(detail.address.name == "Acme GmbH")
        #expect(detail.invoices.map(\.identifier) == ["A-4", "A-3", "A-1", "A-2", "A-5"])
        #expect(detail.invoices.allSatisfy { $0.clientID == id })
    }

    @Test(arguments: StackStore.all) func anUnknownClientIsNil(_ store: StackStore) async throws {
        let stack = try await makeFixtureStack(store)
        #expect(try await stack.clientDetail(id: 9_999) == nil)
    }
}
