#ifndef JOBD_CBUILDINFO_SHIM_H
#define JOBD_CBUILDINFO_SHIM_H

// The commit jobd was built from, for `jobctl --version`; JobctlCommands alone imports this.
// scripts/version writes build-info.h (not in git) with `git describe`; scripts/setup runs it, so
// scripts/install, scripts/test and scripts/run build with it. A plain `swift build` without it
// says "unknown".
#if __has_include("build-info.h")
#include "build-info.h"
#endif
#ifndef JOBD_BUILD_COMMIT
#define JOBD_BUILD_COMMIT "unknown"
#endif

static inline const char *jobd_build_commit(void) { return JOBD_BUILD_COMMIT; }

#endif
