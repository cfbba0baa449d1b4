#ifndef JOBD_CEVENTFD_SHIM_H
#define JOBD_CEVENTFD_SHIM_H

// eventfd, which Swift's Glibc module leaves out; imported by JobdRunner alone (the kernel
// signals a cgroup v1 memory cgroup's OOM through one, registered in cgroup.event_control).
#include <sys/eventfd.h>

#endif
