#define _GNU_SOURCE
#include <stdio.h>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>
#include "CShims.h"

int cshims_exchange_paths(const char *a, const char *b) {
    return renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE);
}

int cshims_flock_exclusive(int fd, int nonblocking) {
    return flock(fd, LOCK_EX | (nonblocking ? LOCK_NB : 0));
}

int cshims_flock_unlock(int fd) {
    return flock(fd, LOCK_UN);
}

int cshims_syncfs(int fd) {
    return syncfs(fd);
}
