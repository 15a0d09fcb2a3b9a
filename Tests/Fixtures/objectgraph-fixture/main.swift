// objectgraph-fixture: small programs that ObjectGraph's tests run as real child processes,
// for what a test cannot do inside its own process: hold a database lock from another
// process, trap on a concurrency violation, or open a store as another user.
//
// Usage:
//   objectgraph-fixture hold-lock PATH SECONDS     lock PATH until stdin closes (or SECONDS pass)
//   objectgraph-fixture hold-write-lock PATH SECONDS   hold only the write lock (readers go on)
//   objectgraph-fixture save-client PATH NAME [--as-nobody]
//                                                  open the store at PATH, insert a client, save
//   objectgraph-fixture violate-concurrency        read an object's property off its context's queue
//   objectgraph-fixture respect-concurrency        the same program, reading inside perform
//   objectgraph-fixture concurrency-debug          print whether the concurrency check is on
//   objectgraph-fixture remote-writer PATH         a second stack on PATH, driven on stdin (see RemoteWriter)
//   objectgraph-fixture die-mid-transaction PATH   start a batch insert on PATH, then wait to be killed
//   objectgraph-fixture migrate-invoices PATH      open an old invoices file with version 3 on `go` (see InvoiceMigrator)
//
// Exit status: 0 on success, 1 when the operation failed (the error is printed), 64 for a
// usage error. A concurrency violation ends the process with a trap.
import Foundation

let arguments = Array(CommandLine.arguments.dropFirst())

func usage() -> Never {
    FileHandle.standardError.write(Data("""
        usage: objectgraph-fixture hold-lock PATH SECONDS
               objectgraph-fixture save-client PATH NAME [--as-nobody]
               objectgraph-fixture violate-concurrency | respect-concurrency | concurrency-debug
               objectgraph-fixture remote-writer PATH | die-mid-transaction PATH | migrate-invoices PATH

        """.utf8))
    exit(64)
}

switch arguments.first {
case "hold-lock":
    guard arguments.count == 3, let seconds = Double(arguments[2]) else { usage() }
    LockHolder.hold(path: arguments[1], atMost: seconds)
case "hold-write-lock":
    guard arguments.count == 3, let seconds = Double(arguments[2]) else { usage() }
    LockHolder.hold(path: arguments[1], atMost: seconds, writeOnly: true)
case "save-client":
    guard arguments.count == 3 || (arguments.count == 4 && arguments[3] == "--as-nobody") else { usage() }
    if arguments.count == 4 { Privileges.dropToNobody() }
    StoreCommands.saveClient(path: arguments[1], name: arguments[2])
case "violate-concurrency":
    await ConcurrencyPrograms.violate()
case "respect-concurrency":
    await ConcurrencyPrograms.respect()
case "concurrency-debug":
    ConcurrencyPrograms.printCheckState()
case "remote-writer":
    guard arguments.count == 2 else { usage() }
    RemoteWriter.run(path: arguments[1])
case "die-mid-transaction":
    guard arguments.count == 2 else { usage() }
    DyingWriter.run(path: arguments[1])
case "migrate-invoices":
    guard arguments.count == 2 else { usage() }
    InvoiceMigrator.run(path: arguments[1])
default:
    usage()
}
