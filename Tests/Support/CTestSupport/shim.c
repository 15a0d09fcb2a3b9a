#define _GNU_SOURCE
#include <fcntl.h>
#include <unistd.h>
#include "CTestSupport.h"

int ts_pipe_cloexec(int fds[2]) { return pipe2(fds, O_CLOEXEC); }

int ts_spawn_add_chdir(posix_spawn_file_actions_t *actions, const char *path) {
    return posix_spawn_file_actions_addchdir_np(actions, path);
}
