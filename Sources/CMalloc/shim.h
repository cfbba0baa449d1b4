#ifndef JOBD_CMALLOC_SHIM_H
#define JOBD_CMALLOC_SHIM_H

// malloc_trim is not part of Swift's Glibc module; JobdDaemon alone imports this, to hand the
// memory a reload freed back to the system.
#include <malloc.h>

#endif
