// The fence of a fleet run (RunOn=one-node): see fence.c.
#ifndef JOBD_CGEXEC_FENCE_H
#define JOBD_CGEXEC_FENCE_H

#include <stdint.h>
#include <sys/types.h>

// Forks: returns 0 in the child, which goes on to become the command; the parent becomes the run's
// supervisor and never returns. -1 (errno set) when it cannot fork. `file` holds the deadline
// (CLOCK_BOOTTIME microseconds, decimal), `stop` the microseconds between SIGTERM and SIGKILL
// (EXEC_UNLIMITED: never SIGKILL), `cgroup` the run's cgroup directory or NULL, and `status_fd` the
// status socket (the supervisor closes its copy, so that jobd hears the command's execve).
int fence_supervise(const char *file, uint64_t stop, const char *cgroup, int status_fd);

// Sends `signal` to `pid` through a pidfd if, once the pidfd is open, `pid` is still a live process
// of process group `group` or, when `cgroup` (a cgroup directory) is given, a member of that cgroup: a
// process that ended after the supervisor listed it is not signalled, nor another process given its
// pid since. Returns 1 when sent.
int fence_signal_pinned(pid_t pid, int signal, pid_t group, const char *cgroup);

#endif
