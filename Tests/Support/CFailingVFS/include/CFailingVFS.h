// A SQLite VFS for tests that passes everything to the default VFS, and fails every write
// while told to: a real I/O error (SQLITE_IOERR_WRITE) at the moment a test chooses, as a
// full disk or a failing device would give, without needing one. It also holds reads of
// chosen files until told to let them go: a read whose SQL is blocked at a point a test
// knows, without sleeping.
#ifndef C_FAILING_VFS_H
#define C_FAILING_VFS_H

/// The VFS's name: open a store with it (PersistentStoreDescription.vfsName).
extern const char *const og_failing_vfs_name;

/// Registers the VFS (once; later calls do nothing). Returns SQLITE_OK or an error code.
int og_failing_vfs_register(void);

/// While `failing` is non-zero, every xWrite of a file opened through the VFS fails with
/// SQLITE_IOERR_WRITE. Process-wide: one test at a time may use it.
void og_failing_vfs_set_failing(int failing);

/// How many writes were refused since registration.
long og_failing_vfs_refused_writes(void);

/// Holds every xRead of a file (through the VFS) whose name contains `path` until the next
/// call; NULL lets every held read go on. Process-wide, but only matching files wait.
void og_failing_vfs_hold_reads(const char *path);

/// How many reads are waiting at the gate right now.
long og_failing_vfs_held_reads(void);

#endif
