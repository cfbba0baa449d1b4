// Entering the run's cgroups, the first step, while jobd-cgexec is still root.
#define _GNU_SOURCE
#include "process.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "exit.h"

void exec_enter_cgroup(const char *directory) {
    char path[4096];
    if (snprintf(path, sizeof path, "%s/cgroup.procs", directory) >= (int)sizeof path)
        exec_fail(EXIT_CGROUP, "cgroup path too long: %s", directory);
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    // jobd created the cgroup just before; under load it was seen gone by now (about 1 run in
    // 10,000 in a hybrid-hierarchy container, cause unknown), so it is made again once.
    if (fd < 0 && errno == ENOENT && (mkdir(directory, 0755) == 0 || errno == EEXIST))
        fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0 || write(fd, "0", 1) != 1) exec_fail(EXIT_CGROUP, "cannot enter the run's cgroup %s: %s", directory, strerror(errno));
    close(fd);
}
