// getxattr, which Swift's Glibc module leaves out; imported by JobdRunner alone (the
// trusted.delegate xattr systemd puts on a delegated cgroup).
#include <sys/xattr.h>
