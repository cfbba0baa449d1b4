#ifndef JOBD_CPIDFD_SHIM_H
#define JOBD_CPIDFD_SHIM_H

// pidfd_open is not part of Swift's Glibc module; JobdTestKit alone imports this, to await the
// end of a process that is not its child (a job's grandchild) as an event rather than by polling.
#include <sys/pidfd.h>

#endif
