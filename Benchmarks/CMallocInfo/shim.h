#ifndef JOBD_CMALLOCINFO_SHIM_H
#define JOBD_CMALLOCINFO_SHIM_H

// mallinfo2 (glibc 2.33+) is not part of Swift's Glibc module; jobd-benchmarks alone imports this,
// to count the heap bytes each kind of timer costs.
#include <malloc.h>

#endif
