import Foundation
import ObjectGraph
import Testing

/// What each kind of stage may do, checked when the plan is made; and what a custom stage
/// must finish (new required relationships set).
@Suite struct StageRulesTests {
    enum Old {
        final class Team: ManagedObject {
            @Attribute var name: String
        }
        final class Player: ManagedObject {
            @Attribute var name: String
            @Attribute var teamName: String?
        }
    }

    /// A player gets a required team; the free-text team name goes.
    enum New {
        final class Team: ManagedObject {
            @Attribute var name: String
            @Relationship(inverse: \Player.team) var players: Set<Player>
        }
        final class Player: ManagedObject {
            @Attribute var name: String
            @Relationship(isRequired: true) var team: Team?
        }
    }

    /// `Player.name` renamed `fullName`.
    enum Renamed {
        final class Team: ManagedObject {
            @Attribute var name: String
        }
        final class Player: ManagedObject {
            @Attribute var fullName: String
            @Attribute var teamName: String?
        }
    }

    static let old = CatalogV1.makeModel([Old.Team.self, Old.Player.self], version: 1)
    static let new = CatalogV1.makeModel([New.Team.self, New.Player.self], version: 2)
    static let renamed = CatalogV1.makeModel([Renamed.Team.self, Renamed.Player.self], version: 2)

    @Test func aLightweightStageCannotAddARequiredRelationshipToExistingObjects() {
        let error = #expect(throws: MigrationPlanError.self) {
            _ = try MigrationPlan(models: [Self.old, Self.new], stages: [.lightweight(from: 1, to: 2)])
        }
        guard case .unsupportedChanges(_, let differences)? = error else {
            Issue.record("expected unsupportedChanges, got \(String(describing: error))")
            return
        }
        #expect(differences == ["relationship Player.team is new and required, so existing Player objects would have none: make it optional, or set it in a custom stage"])
    }

    @Test func aCustomStageCannotChangeAnAttributesType() {
        enum Retyped {
            final class Team: ManagedObject {
                @Attribute var name: String
            }
            final class Player: ManagedObject {
                @Attribute var name: String
                @Attribute var teamName: Int?
            }
        }
        let retyped = CatalogV1.makeModel([Retyped.Team.self, Retyped.Player.self], version: 2)
        let error = #expect(throws: MigrationPlanError.self) {
            _ = try MigrationPlan(models: [Self.old, retyped], stages: [.custom(from: 1, to: 2) { _ in }])
        }
        guard case .unsupportedChanges(_, let differences)? = error else {
            Issue.record("expected unsupportedChanges, got \(String(describing: error))")
            return
        }
        #expect(differences == ["attribute Player.teamName changes type from string to int: a custom stage does not change types; do it in a lightweight stage before or after it"])
    }

    @Test func aRenameOfAPropertyTheOldVersionLacksIsRefused() {
        let error = #expect(throws: MigrationPlanError.self) {
            _ = try MigrationPlan(models: [Self.old, Self.renamed], stages: [
                .lightweight(from: 1, to: 2, renaming: [.property(\Renamed.Player.fullName, to: \Renamed.Player.fullName)]),
            ])
        }
        guard case .invalidRename(let stage, _, let reason)? = error else {
            Issue.record("expected invalidRename, got \(String(describing: error))")
            return
        }
        #expect(stage == "1 → 2")
        #expect(reason.contains("version 1"))
    }

    @Test func aCustomStageFillsANewRequiredRelationshipFromAnOldAttribute() async throws {
        // Given a version 1 file with two players naming their team in text
        let url = try await Self.players([("Ada", "Reds"), ("Bob", "Blues")])
        defer { StoreFileState.cleanUp(url) }

        // When a custom stage makes a team per name and links the players
        let coordinator = try InvoiceFiles.open(url, with: Self.new, plan: try Self.teamsPlan(skipping: nil))

        // Then each player has its team
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        let teams = try await context.perform {
            try context.fetch(FetchRequest<New.Player>(sortBy: [SortDescriptor(\.name)])).map { $0.team?.name }
        }
        #expect(teams == ["Reds", "Blues"])
    }

    @Test func aCustomStageThatLeavesANewRequiredRelationshipEmptyFailsNamingTheObject() async throws {
        // Given a version 1 file with two players
        let url = try await Self.players([("Ada", "Reds"), ("Bob", "Blues")])
        defer { StoreFileState.cleanUp(url) }
        let bob = try #require(Int64(try SQLiteFile.strings("SELECT _pk FROM Player WHERE name = 'Bob'", at: url).first ?? ""))
        let before = try Data(contentsOf: url)

        // When the custom stage forgets Bob
        let error = #expect(throws: MigrationError.self) {
            _ = try InvoiceFiles.open(url, with: Self.new, plan: try Self.teamsPlan(skipping: "Bob"))
        }

        // Then the migration fails at Bob's empty team, and the file is untouched
        #expect(error == .stageFailed(MigrationFailure(stage: "1 → 2 (teams)", entity: "Player", primaryKey: bob,
                                                       property: "team", value: .null, reason: .missingRelationship)))
        #expect(try Data(contentsOf: url) == before)
    }

    static func players(_ players: [(String, String)]) async throws -> URL {
        let url = TestStack.fileURL()
        let coordinator = try InvoiceFiles.open(url, with: old)
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        try await context.perform {
            for (name, team) in players {
                let player = Old.Player(context: context)
                player.name = name
                player.teamName = team
            }
            try context.save()
        }
        return url
    }

    static func teamsPlan(skipping skipped: String?) throws -> MigrationPlan {
        try MigrationPlan(models: [old, new], stages: [
            .custom(from: 1, to: 2, name: "teams") { migration in
                var teams: [String: ObjectID] = [:]
                try migration.forEachRow(of: Old.Player.self, batchSize: 1) { row, context in
                    guard try row[\.name] != skipped, let name = try row[\.teamName] else { return }
                    let player = try context.existingObject(with: row.objectID, as: New.Player.self)
                    if let id = teams[name] {
                        player.team = try context.existingObject(with: id, as: New.Team.self)
                    } else {
                        let team = New.Team(context: context)
                        team.name = name
                        player.team = team
                        try context.obtainPermanentIDs(for: [team])
                        teams[name] = team.objectID
                    }
                }
            },
        ])
    }
}
