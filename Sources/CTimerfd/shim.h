#ifndef JOBD_CTIMERFD_SHIM_H
#define JOBD_CTIMERFD_SHIM_H

// timerfd and eventfd are not part of Swift's Glibc module; JobdTimers alone imports this.
#include <sys/timerfd.h>
#include <sys/eventfd.h>

#endif
