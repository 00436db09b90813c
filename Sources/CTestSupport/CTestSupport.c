#define _GNU_SOURCE
#include "CTestSupport.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

// posix_openpt and friends need _XOPEN_SOURCE, which Swift's Glibc import does not define.
int journal_test_open_pty(char *name, size_t length) {
  int master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
  if (master < 0) return -1;
  if (grantpt(master) != 0 || unlockpt(master) != 0) {
    close(master);
    return -1;
  }
  const char *slave = ptsname(master);
  if (slave == NULL || strlen(slave) + 1 > length) {
    close(master);
    return -1;
  }
  strcpy(name, slave);
  return master;
}

int journal_test_pipe(int fds[2]) { return pipe2(fds, O_CLOEXEC); }
