#define _GNU_SOURCE
#include "CJournalSystem.h"

#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/vfs.h>
#include <sys/socket.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

// tmpfs's magic number, from linux/magic.h.
#define JOURNAL_TMPFS_MAGIC 0x01021994

// prctl is variadic, which Swift cannot call; this file exists for it.
int journal_harden_process(void) {
  struct rlimit none = {0, 0};
  int status = setrlimit(RLIMIT_CORE, &none);
  if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) status = -1;
  return status;
}

int journal_open_unnamed(const char *directory, unsigned int mode) {
  return open(directory, O_TMPFILE | O_WRONLY | O_CLOEXEC, (mode_t)mode);
}

int journal_link_unnamed(int fd, const char *path) {
  char name[64];
  snprintf(name, sizeof(name), "/proc/self/fd/%d", fd);
  return linkat(AT_FDCWD, name, AT_FDCWD, path, AT_SYMLINK_FOLLOW);
}

int journal_rename_new(const char *from, const char *to) {
  return renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE);
}

int journal_is_tmpfs(const char *path) {
  struct statfs info;
  if (statfs(path, &info) != 0) return -1;
  return info.f_type == JOURNAL_TMPFS_MAGIC ? 1 : 0;
}

int journal_peer_uid(int fd, unsigned int *uid) {
  struct ucred credentials;
  socklen_t length = sizeof(credentials);
  if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) != 0) return -1;
  *uid = credentials.uid;
  return 0;
}

int journal_peer_pid(int fd, int *pid) {
  struct ucred credentials;
  socklen_t length = sizeof(credentials);
  if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) != 0) return -1;
  *pid = credentials.pid;
  return 0;
}

int journal_pipe(int fds[2]) { return pipe2(fds, O_CLOEXEC); }
