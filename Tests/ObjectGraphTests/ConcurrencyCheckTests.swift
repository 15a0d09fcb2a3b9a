import Foundation
import Testing
@testable import ObjectGraph

/// SEMANTICS.md §1: using a managed object off its context's queue traps, with a message
/// naming the context, its queue kind and the object. A trap ends the process, so the
/// violating program runs as a child process (objectgraph-fixture) and the test reads what it
/// left behind.
@Suite struct ConcurrencyCheckTests {
    /// The check's switch, removed so each test decides it.
    static let switchVariable = "OBJECTGRAPH_CONCURRENCY_DEBUG"

    @Test func readingAnObjectOutsideItsContextsQueueTrapsWithAMessageNamingContextQueueAndObject() async throws {
        // Given a program that smuggles a client out of a private context's perform block
        // When it reads the client's name on the main thread (check switched on explicitly,
        // as a release build would need it)
        let result = try await FixtureProcess.run(["violate-concurrency"], environment: [Self.switchVariable: "1"])

        // Then it dies at that read, and stderr says what happened where
        #expect(!result.exitedSuccessfully)
        #expect(result.stdout.contains("reading outside perform"))
        #expect(!result.stdout.contains("read Smuggled"))
        #expect(result.stderr.contains("ObjectGraph concurrency violation"))
        #expect(result.stderr.contains("Client"))
        #expect(result.stderr.contains("\"fixture-writer\""))
        #expect(result.stderr.contains("private queue"))
        #expect(result.stderr.contains("context.perform"))
    }

    @Test func theSameProgramUsingTheObjectInsidePerformRunsToCompletion() async throws {
        // Given the same program, reading the name inside perform and passing the value out
        // When it runs with the check on
        let result = try await FixtureProcess.run(["respect-concurrency"], environment: [Self.switchVariable: "1"])

        // Then it exits normally, having read the value
        #expect(result.exitedSuccessfully, "stderr: \(result.stderr)")
        #expect(result.stdout.contains("read Smuggled"))
        #expect(!result.stderr.contains("ObjectGraph concurrency violation"))
    }

    @Test func theCheckIsOnInDebugBuildsWithoutTheEnvironmentVariable() async throws {
        // Given the fixture built in the same configuration as these tests
        // When it runs without OBJECTGRAPH_CONCURRENCY_DEBUG
        let result = try await FixtureProcess.run(["concurrency-debug"], environment: [Self.switchVariable: nil])

        // Then the check is on in a debug build and off in a release build
        #if DEBUG
        #expect(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "enabled")
        #else
        #expect(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "disabled")
        #endif
    }

    @Test(arguments: ["1", "true", "YES"])
    func theEnvironmentVariableSwitchesTheCheckOn(_ value: String) async throws {
        // Given OBJECTGRAPH_CONCURRENCY_DEBUG set to an affirmative value (what a release
        // build needs to check)
        // When the fixture reports the check's state
        let result = try await FixtureProcess.run(["concurrency-debug"], environment: [Self.switchVariable: value])

        // Then the check is on
        #expect(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "enabled")
    }

    @Test func settingTheEnvironmentVariableToZeroSwitchesTheCheckOffEvenInDebug() async throws {
        // Given OBJECTGRAPH_CONCURRENCY_DEBUG=0
        // When the fixture reports the check's state, and the violating program runs
        let state = try await FixtureProcess.run(["concurrency-debug"], environment: [Self.switchVariable: "0"])
        let violation = try await FixtureProcess.run(["violate-concurrency"], environment: [Self.switchVariable: "0"])

        // Then the check is off: the smuggled read goes unnoticed and the program completes
        #expect(state.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "disabled")
        #expect(violation.exitedSuccessfully, "stderr: \(violation.stderr)")
        #expect(violation.stdout.contains("read Smuggled"))
    }
}
