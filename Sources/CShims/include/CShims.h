#ifndef CSHIMS_H
#define CSHIMS_H

/// Atomically exchange two paths (Linux renameat2 with RENAME_EXCHANGE). Returns 0 or -1/errno.
int cshims_exchange_paths(const char *a, const char *b);

/// Rename `from` in folder `fromdir` to `to` in folder `todir` unless `to` exists (Linux renameat2
/// with RENAME_NOREPLACE). Returns 0 or -1/errno (EEXIST when `to` exists).
int cshims_rename_noreplace(int fromdir, const char *from, int todir, const char *to);

/// flock(2) on an open descriptor: exclusive, optionally non-blocking. Returns 0 or -1/errno.
int cshims_flock_exclusive(int fd, int nonblocking);

/// Release a flock(2) lock.
int cshims_flock_unlock(int fd);

/// The running program's GNU build id (the linker's hash of the executable), read from its
/// loaded PT_NOTE segments. Copies up to `capacity` bytes into `out`; returns the id's length,
/// or 0 when the program has none.
int cshims_build_id(unsigned char *out, int capacity);

/// syncfs(2): flush every dirty page of the filesystem holding fd. Returns 0 or -1/errno.
int cshims_syncfs(int fd);

/// How many processors this process may run on (sched_getaffinity: what taskset and container
/// CPU sets allow), or 0 when it cannot be read.
int cshims_allowed_cpus(void);

/// Blocks SIGINT and SIGTERM in the calling thread (and the threads it starts later) and
/// returns a signalfd(2) that becomes readable when either arrives; -1/errno on failure.
int cshims_stop_signals_fd(void);
#endif
