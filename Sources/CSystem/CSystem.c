#include "CSystem.h"

#include <sys/prctl.h>
#include <sys/resource.h>

// prctl is variadic, which Swift cannot call; this file exists for it.
int journal_harden_process(void) {
  struct rlimit none = {0, 0};
  int status = setrlimit(RLIMIT_CORE, &none);
  if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) status = -1;
  return status;
}
