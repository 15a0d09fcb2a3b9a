// What Swift cannot call directly from glibc without _GNU_SOURCE.
#ifndef C_TEST_SUPPORT_H
#define C_TEST_SUPPORT_H
#include <spawn.h>

/// pipe2(fds, O_CLOEXEC): both ends close-on-exec from the start (no window in which a
/// child started by another thread inherits them).
int ts_pipe_cloexec(int fds[2]);
/// posix_spawn_file_actions_addchdir_np.
int ts_spawn_add_chdir(posix_spawn_file_actions_t *actions, const char *path);

#endif
