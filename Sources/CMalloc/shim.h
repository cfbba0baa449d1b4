#ifndef JOBD_CMALLOC_SHIM_H
#define JOBD_CMALLOC_SHIM_H

// malloc_trim and mallopt are not part of Swift's Glibc module; JobdDaemon alone imports this, to
// hand the memory a reload freed back to the system and to bound the malloc arenas (M_ARENA_MAX).
#include <malloc.h>

#endif
