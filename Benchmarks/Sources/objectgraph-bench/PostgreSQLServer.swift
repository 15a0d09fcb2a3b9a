import Foundation
import Synchronization

/// The benchmark's own PostgreSQL server: `scripts/cluster.sh start-postgresql` with a folder
/// under the temporary directory and a loopback port of its own, never `.build-cluster/`.
/// Debian's `postgres` runs as the `postgres` user (the script uses runuser when this is
/// root), with fsync, synchronous_commit and full_page_writes off (`CLUSTER_PG_FAST=1`): the
/// benchmark measures the client libraries, not the disk. `stop()` stops it by the PID the
/// script wrote, and an interrupt (^C, SIGTERM) stops it too.
struct PostgreSQLServer: Sendable {
    let directory: URL
    let port: Int

    private static let script = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("scripts/cluster.sh").path

    /// Starts a new server (initdb in a new folder) on `port`.
    static func start(port: Int) throws -> PostgreSQLServer {
        let directory = URL(fileURLWithPath: "/tmp/objectgraph-pg-bench-\(UUID().uuidString.prefix(8))")
        let server = PostgreSQLServer(directory: directory, port: port)
        server.stopOnInterrupt()
        do {
            try server.run("start-postgresql")
        } catch {
            server.stop()
            throw error
        }
        return server
    }

    /// A libpq URL of one database, as the superuser (trust authentication on loopback).
    func url(database: String) -> String { "postgresql://postgres@127.0.0.1:\(port)/\(database)" }

    /// Stops the server by its PID and removes its folder; failures are logged, not thrown,
    /// so a failed run still reaches its end.
    /// Once only: an interrupt and the run's own end (its connections broken by the stop)
    /// may both call it, and the second waits for the first.
    func stop() {
        Self.stopped.withLock { stopped in
            guard !stopped else { return }
            stopped = true
            do { try run("stop") } catch { log("warning: \(error)") }
            do { try FileManager.default.removeItem(at: directory) } catch { log("warning: cannot remove \(directory.path): \(error)") }
        }
    }

    /// One server per process.
    private static let stopped = Mutex(false)

    /// Through `system` rather than Foundation's `Process`, whose wait on Linux can miss the
    /// child's end and hang.
    private func run(_ command: String) throws {
        let line = "CLUSTER_DIR='\(directory.path)' CLUSTER_PG_PORT=\(port) CLUSTER_PG_FAST=1 "
            + "/bin/sh '\(Self.script)' \(command) >&2"
        let status = system(line)
        guard status == 0 else { throw HarnessError("scripts/cluster.sh \(command) ended with \(status); see \(directory.path)") }
    }

    /// The main thread is busy running the benchmark, so the signals are handled on a queue:
    /// blocked in this thread (Dispatch's own threads block them), they stay pending until
    /// Dispatch reads them, rather than go to a thread that would drop them.
    private func stopOnInterrupt() {
        var blocked = sigset_t()
        sigemptyset(&blocked)
        for number in [SIGINT, SIGTERM] { sigaddset(&blocked, number) }
        pthread_sigmask(SIG_BLOCK, &blocked, nil)
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                log("interrupted: stopping PostgreSQL")
                stop()
                exit(130)
            }
            source.resume()
            interruptSources.append(source)
        }
    }
}

/// The interrupt handlers, kept for the life of the process (a released source stops
/// handling its signal); appended to on the main thread only, before the run.
nonisolated(unsafe) private var interruptSources: [any DispatchSourceSignal] = []
