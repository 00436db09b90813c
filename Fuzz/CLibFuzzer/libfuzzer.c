// Declarations only: see include/libfuzzer.h.
#include "libfuzzer.h"
