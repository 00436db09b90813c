#ifndef JOURNAL_CJOURNALSYSTEM_H
#define JOURNAL_CJOURNALSYSTEM_H

/// Turns off core dumps (RLIMIT_CORE = 0) and marks the process non-dumpable, which also
/// refuses ptrace attachment by other processes of the same user. Returns 0 on success.
int journal_harden_process(void);

/// 1 when `path` is on a tmpfs (memory-backed), 0 when not, -1 when it cannot be checked.
int journal_is_tmpfs(const char *path);

/// The uid of the process at the other end of a Unix socket (SO_PEERCRED). Returns 0 on
/// success, -1 on failure.
int journal_peer_uid(int fd, unsigned int *uid);

/// The process id at the other end of a Unix socket (SO_PEERCRED; for a client, the process
/// that listened). Returns 0 on success, -1 on failure.
int journal_peer_pid(int fd, int *pid);

/// pipe2 with O_CLOEXEC: neither end leaks into a program spawned meanwhile (a reader that
/// inherited the writing end would never see the end of its input). Returns 0 on success.
int journal_pipe(int fds[2]);

/// A new file with no name in the directory `directory` (O_TMPFILE), open for writing, with
/// `mode`: gone with its last descriptor (a kill, a crash) unless linked to a name. -1 with
/// errno where the file system cannot (EOPNOTSUPP, EISDIR, EINVAL: FAT, some network ones).
int journal_open_unnamed(const char *directory, unsigned int mode);

/// Gives the unnamed file open at `fd` the name `path` (linkat through /proc/self/fd, which
/// needs no privilege); fails with EEXIST when anything, a symbolic link too, has it.
/// Returns 0 on success, -1 with errno.
int journal_link_unnamed(int fd, const char *path);

/// Moves `from` to `to` in one step, never over anything at `to` (renameat2 with
/// RENAME_NOREPLACE: EEXIST). Unlike a hard link, FAT and exFAT can. Returns 0 on success,
/// -1 with errno.
int journal_rename_new(const char *from, const char *to);

#endif
