// The attributes of the run's process that need root: resource limits, nice value, I/O priority,
// CPU scheduling, the OOM score adjustment; and the umask. Set before the switch of credentials, as systemd sets them (a
// negative nice value or a raised hard limit needs root).
#define _GNU_SOURCE
#include "process.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "exit.h"

static rlim_t limit_value(uint64_t value) {
    return value == EXEC_UNLIMITED ? RLIM_INFINITY : (rlim_t)value;
}

// OOMScoreAdjust=, as systemd 252 sets it: written to /proc/self/oom_score_adj. Lowering it needs
// CAP_SYS_RESOURCE, which a container's root may lack: as systemd ("assuming containerized
// execution"), a refusal for want of privilege is warned about and the run goes on; any other
// failure fails the start.
static void set_oom_score_adjust(int adjust) {
    char text[16];
    int length = snprintf(text, sizeof text, "%d\n", adjust);
    int file = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
    if (file >= 0 && write(file, text, (size_t)length) == length) {
        close(file);
        return;
    }
    if (errno != EPERM && errno != EACCES) exec_fail(EXIT_OOM_ADJUST, "cannot set the OOM score adjustment %d: %s", adjust, strerror(errno));
    dprintf(STDERR_FILENO, "jobd-cgexec: warning: cannot set the OOM score adjustment %d: %s; the run goes on without it, as a systemd "
            "service would\n", adjust, strerror(errno));
    if (file >= 0) close(file);
}

void exec_apply_attributes(const struct exec_attributes *wanted) {
    for (size_t i = 0; i < wanted->rlimit_count; i++) {
        const struct exec_rlimit *limit = &wanted->rlimits[i];
        struct rlimit value = {limit_value(limit->soft), limit_value(limit->hard)};
        if (setrlimit((int)limit->resource, &value) != 0)
            exec_fail(EXIT_LIMITS, "cannot set resource limit %u: %s", limit->resource, strerror(errno));
    }
    if (wanted->has_nice && setpriority(PRIO_PROCESS, 0, wanted->nice) != 0)
        exec_fail(EXIT_NICE, "cannot set nice value %d: %s", wanted->nice, strerror(errno));
    // ioprio_set(IOPRIO_WHO_PROCESS, 0, value): glibc has no wrapper.
    if (wanted->has_ioprio && syscall(SYS_ioprio_set, 1, 0, (int)wanted->ioprio) != 0)
        exec_fail(EXIT_IOPRIO, "cannot set I/O priority %u: %s", wanted->ioprio, strerror(errno));
    if (wanted->has_sched) {
        struct sched_param parameter = {.sched_priority = (int)wanted->sched_priority};
        if (sched_setscheduler(0, (int)wanted->sched_policy, &parameter) != 0)
            exec_fail(EXIT_SETSCHEDULER, "cannot set CPU scheduling %u:%u: %s", wanted->sched_policy, wanted->sched_priority, strerror(errno));
    }
    if (wanted->has_oom_score_adjust) set_oom_score_adjust(wanted->oom_score_adjust);
    if (wanted->has_umask) umask((mode_t)wanted->umask);
}
