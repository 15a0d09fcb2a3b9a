#include <pthread.h>
#include <sqlite3.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include "CFailingVFS.h"

const char *const og_failing_vfs_name = "og-failing";

// The file: our methods, then the default VFS's own file object right after it.
typedef struct FailingFile {
    sqlite3_file base;
    sqlite3_file *real;
    /// The name SQLite opened the file under (valid until xClose), or NULL.
    const char *name;
} FailingFile;

// The read gate: `held_path` (NULL when open) and `held_reads` are guarded by `gate_mutex`;
// readers wait on `gate_opened` while their file's name contains `held_path`.
static pthread_mutex_t gate_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t gate_opened = PTHREAD_COND_INITIALIZER;
static char *held_path;
static long held_reads;

static sqlite3_vfs *real_vfs;
static sqlite3_vfs failing_vfs;
static atomic_int failing;
static atomic_long refused;
static atomic_int registered;

#define REAL(f) (((FailingFile *)(f))->real)

static int f_close(sqlite3_file *f) { return REAL(f)->pMethods->xClose(REAL(f)); }
static int f_read(sqlite3_file *f, void *b, int n, sqlite3_int64 o) {
    const char *name = ((FailingFile *)f)->name;
    pthread_mutex_lock(&gate_mutex);
    while (held_path && name && strstr(name, held_path)) {
        held_reads += 1;
        pthread_cond_wait(&gate_opened, &gate_mutex);
        held_reads -= 1;
    }
    pthread_mutex_unlock(&gate_mutex);
    return REAL(f)->pMethods->xRead(REAL(f), b, n, o);
}

void og_failing_vfs_hold_reads(const char *path) {
    pthread_mutex_lock(&gate_mutex);
    free(held_path);
    held_path = path ? strdup(path) : NULL;
    pthread_cond_broadcast(&gate_opened);
    pthread_mutex_unlock(&gate_mutex);
}

long og_failing_vfs_held_reads(void) {
    pthread_mutex_lock(&gate_mutex);
    long count = held_reads;
    pthread_mutex_unlock(&gate_mutex);
    return count;
}
static int f_write(sqlite3_file *f, const void *b, int n, sqlite3_int64 o) {
    if (atomic_load(&failing)) {
        atomic_fetch_add(&refused, 1);
        return SQLITE_IOERR_WRITE;
    }
    return REAL(f)->pMethods->xWrite(REAL(f), b, n, o);
}
static int f_truncate(sqlite3_file *f, sqlite3_int64 s) { return REAL(f)->pMethods->xTruncate(REAL(f), s); }
static int f_sync(sqlite3_file *f, int flags) { return REAL(f)->pMethods->xSync(REAL(f), flags); }
static int f_size(sqlite3_file *f, sqlite3_int64 *s) { return REAL(f)->pMethods->xFileSize(REAL(f), s); }
static int f_lock(sqlite3_file *f, int l) { return REAL(f)->pMethods->xLock(REAL(f), l); }
static int f_unlock(sqlite3_file *f, int l) { return REAL(f)->pMethods->xUnlock(REAL(f), l); }
static int f_check(sqlite3_file *f, int *r) { return REAL(f)->pMethods->xCheckReservedLock(REAL(f), r); }
static int f_control(sqlite3_file *f, int op, void *a) { return REAL(f)->pMethods->xFileControl(REAL(f), op, a); }
static int f_sector(sqlite3_file *f) { return REAL(f)->pMethods->xSectorSize(REAL(f)); }
static int f_device(sqlite3_file *f) { return REAL(f)->pMethods->xDeviceCharacteristics(REAL(f)); }
static int f_shm_map(sqlite3_file *f, int i, int sz, int w, void volatile **p) {
    return REAL(f)->pMethods->xShmMap(REAL(f), i, sz, w, p);
}
static int f_shm_lock(sqlite3_file *f, int o, int n, int fl) { return REAL(f)->pMethods->xShmLock(REAL(f), o, n, fl); }
static void f_shm_barrier(sqlite3_file *f) { REAL(f)->pMethods->xShmBarrier(REAL(f)); }
static int f_shm_unmap(sqlite3_file *f, int d) { return REAL(f)->pMethods->xShmUnmap(REAL(f), d); }
static int f_fetch(sqlite3_file *f, sqlite3_int64 o, int n, void **p) { return REAL(f)->pMethods->xFetch(REAL(f), o, n, p); }
static int f_unfetch(sqlite3_file *f, sqlite3_int64 o, void *p) { return REAL(f)->pMethods->xUnfetch(REAL(f), o, p); }

static const sqlite3_io_methods failing_methods = {
    3, f_close, f_read, f_write, f_truncate, f_sync, f_size, f_lock, f_unlock, f_check, f_control, f_sector,
    f_device, f_shm_map, f_shm_lock, f_shm_barrier, f_shm_unmap, f_fetch, f_unfetch,
};

static int v_open(sqlite3_vfs *vfs, sqlite3_filename name, sqlite3_file *file, int flags, int *out) {
    (void)vfs;
    FailingFile *p = (FailingFile *)file;
    p->real = (sqlite3_file *)&p[1];
    p->name = name;
    int rc = real_vfs->xOpen(real_vfs, name, p->real, flags, out);
    p->base.pMethods = p->real->pMethods ? &failing_methods : 0;
    return rc;
}
static int v_delete(sqlite3_vfs *v, const char *n, int s) { (void)v; return real_vfs->xDelete(real_vfs, n, s); }
static int v_access(sqlite3_vfs *v, const char *n, int f, int *r) { (void)v; return real_vfs->xAccess(real_vfs, n, f, r); }
static int v_full(sqlite3_vfs *v, const char *n, int sz, char *o) { (void)v; return real_vfs->xFullPathname(real_vfs, n, sz, o); }
static void *v_dlopen(sqlite3_vfs *v, const char *n) { (void)v; return real_vfs->xDlOpen(real_vfs, n); }
static void v_dlerror(sqlite3_vfs *v, int n, char *m) { (void)v; real_vfs->xDlError(real_vfs, n, m); }
static void (*v_dlsym(sqlite3_vfs *v, void *h, const char *s))(void) { (void)v; return real_vfs->xDlSym(real_vfs, h, s); }
static void v_dlclose(sqlite3_vfs *v, void *h) { (void)v; real_vfs->xDlClose(real_vfs, h); }
static int v_random(sqlite3_vfs *v, int n, char *o) { (void)v; return real_vfs->xRandomness(real_vfs, n, o); }
static int v_sleep(sqlite3_vfs *v, int us) { (void)v; return real_vfs->xSleep(real_vfs, us); }
static int v_time(sqlite3_vfs *v, double *t) { (void)v; return real_vfs->xCurrentTime(real_vfs, t); }
static int v_error(sqlite3_vfs *v, int n, char *m) { (void)v; return real_vfs->xGetLastError(real_vfs, n, m); }
static int v_time64(sqlite3_vfs *v, sqlite3_int64 *t) { (void)v; return real_vfs->xCurrentTimeInt64(real_vfs, t); }

int og_failing_vfs_register(void) {
    int expected = 0;
    if (!atomic_compare_exchange_strong(&registered, &expected, 1)) return SQLITE_OK;
    real_vfs = sqlite3_vfs_find(0);
    if (!real_vfs) return SQLITE_ERROR;
    memset(&failing_vfs, 0, sizeof failing_vfs);
    failing_vfs.iVersion = 2;
    failing_vfs.szOsFile = (int)sizeof(FailingFile) + real_vfs->szOsFile;
    failing_vfs.mxPathname = real_vfs->mxPathname;
    failing_vfs.zName = og_failing_vfs_name;
    failing_vfs.xOpen = v_open;
    failing_vfs.xDelete = v_delete;
    failing_vfs.xAccess = v_access;
    failing_vfs.xFullPathname = v_full;
    failing_vfs.xDlOpen = v_dlopen;
    failing_vfs.xDlError = v_dlerror;
    failing_vfs.xDlSym = v_dlsym;
    failing_vfs.xDlClose = v_dlclose;
    failing_vfs.xRandomness = v_random;
    failing_vfs.xSleep = v_sleep;
    failing_vfs.xCurrentTime = v_time;
    failing_vfs.xGetLastError = v_error;
    failing_vfs.xCurrentTimeInt64 = v_time64;
    return sqlite3_vfs_register(&failing_vfs, 0);
}

void og_failing_vfs_set_failing(int value) { atomic_store(&failing, value); }

long og_failing_vfs_refused_writes(void) { return atomic_load(&refused); }
