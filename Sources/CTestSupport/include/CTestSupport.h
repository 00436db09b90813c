#ifndef JOURNAL_CTESTSUPPORT_H
#define JOURNAL_CTESTSUPPORT_H

#include <stddef.h>

/// Opens a pseudo-terminal pair for tests: returns the master descriptor and writes the
/// slave's path into `name`. Returns -1 on failure.
int journal_test_open_pty(char *name, size_t length);

/// pipe2 with O_CLOEXEC, so a process spawned concurrently never inherits the other end.
int journal_test_pipe(int fds[2]);

#endif
