// The fence of a fleet run (RunOn=one-node, issue 28): a node may run such a run only while it holds
// the run's lease in the fleet's database. jobd renews the lease every third of it and, after each
// renewal, rewrites the run's fence file with the instant (CLOCK_BOOTTIME microseconds, so that the
// time a suspended machine slept counts) before which the lease surely still holds. The deadline
// must hold while jobd itself is stopped or stalled, so it is kept here, outside jobd: the process
// jobd started forks, the child becomes the command, and the parent stays behind as the run's
// supervisor (root, in the run's cgroup and process group, a few hundred kilobytes). It looks at
// the file every 100 ms; once the deadline has passed (or the file is gone: it fails closed) it
// sends SIGTERM to the run's processes, SIGKILL after the stop timeout, and leaves FILE.stopped
// behind to tell jobd why the run ended, and when (CLOCK_REALTIME microseconds, written once the
// last process is gone: jobd, if it was stopped, learns of the end later). It ignores SIGTERM, SIGINT and SIGHUP itself, so that
// jobd's own stop (a signal to the whole process group) reaches the command and the supervisor
// reports how the command ended: it exits with the command's status, or dies of its signal.
#define _GNU_SOURCE
#include "fence.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char *fence_cgroup;

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal 424
#endif

static uint64_t boottime_usec(void) {
    struct timespec now;
    clock_gettime(CLOCK_BOOTTIME, &now);
    return (uint64_t)now.tv_sec * 1000000u + (uint64_t)now.tv_nsec / 1000u;
}

// The deadline in the file; 0 (passed) when it cannot be read: a missing fence stops the run.
static uint64_t read_deadline(const char *file) {
    char text[32];
    int fd = open(file, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) return 0;
    ssize_t count = read(fd, text, sizeof text - 1);
    close(fd);
    if (count <= 0) return 0;
    text[count] = '\0';
    char *end;
    errno = 0;
    unsigned long long value = strtoull(text, &end, 10);
    if (errno != 0 || end == text || (*end != '\0' && *end != '\n')) return 0;
    return value;
}

// /proc/PID/NAME into `text` (one read, NUL-terminated); 0 when it cannot be read.
static int read_proc(pid_t pid, const char *name, char *text, size_t size) {
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/%s", (int)pid, name);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    ssize_t count = read(fd, text, size - 1);
    close(fd);
    if (count <= 0) return 0;
    text[count] = '\0';
    return 1;
}

// The process group of `pid` from /proc/PID/stat, or -1 for a process gone or dying (a zombie).
static pid_t live_group(pid_t pid) {
    char text[1024];
    if (!read_proc(pid, "stat", text, sizeof text)) return -1;
    // PID (COMM) STATE PPID PGRP ...: COMM may hold spaces and parentheses.
    char *close_paren = strrchr(text, ')');
    char state;
    int parent, group;
    if (close_paren == NULL || sscanf(close_paren + 1, " %c %d %d", &state, &parent, &group) != 3) return -1;
    if (state == 'Z' || state == 'X') return -1;
    return group;
}

// Whether `pid` is in the cgroup directory `cgroup` (under the cgroup file system's mount): the
// 0::PATH line of /proc/PID/cgroup, which names it from the mount, ends the directory's path.
static int in_cgroup(pid_t pid, const char *cgroup) {
    char text[4096];
    if (!read_proc(pid, "cgroup", text, sizeof text)) return 0;
    char *line = strncmp(text, "0::", 3) == 0 ? text : strstr(text, "\n0::");
    if (line == NULL) return 0;
    line += line == text ? 3 : 4;
    line[strcspn(line, "\n")] = '\0';
    size_t length = strlen(line), directory = strlen(cgroup);
    return length > 0 && length <= directory && strcmp(cgroup + directory - length, line) == 0;
}

int fence_signal_pinned(pid_t pid, int signal, pid_t group, const char *cgroup) {
    int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
    if (pidfd < 0) return 0;
    // Checked once the pidfd is open, so of the process it holds. A cgroup member needs no check of
    // its own that it is alive: a zombie's signal is lost, harmlessly.
    int meant = cgroup != NULL ? in_cgroup(pid, cgroup) : live_group(pid) == group;
    int sent = meant && syscall(SYS_pidfd_send_signal, pidfd, signal, NULL, 0) == 0;
    close(pidfd);
    return sent;
}

// Sends `signal` (0: none) to every live process of the run but this one: the members of its
// process group, and of its cgroup (which also holds those that left the group). Returns how many.
// Each through a pidfd (fence_signal_pinned): a pid read from /proc or cgroup.procs a moment ago
// may be another process's by now.
static int signal_others(int signal) {
    pid_t self = getpid(), group = getpgrp();
    int count = 0;
    DIR *proc = opendir("/proc");
    for (struct dirent *entry; proc != NULL && (entry = readdir(proc)) != NULL;) {
        char *end;
        long pid = strtol(entry->d_name, &end, 10);
        if (*end != '\0' || pid <= 0 || pid == self || live_group((pid_t)pid) != group) continue;
        count++;
        if (signal != 0) fence_signal_pinned((pid_t)pid, signal, group, NULL);
    }
    if (proc != NULL) closedir(proc);
    if (fence_cgroup == NULL) return count;
    char path[4096];
    if (snprintf(path, sizeof path, "%s/cgroup.procs", fence_cgroup) >= (int)sizeof path) return count;
    FILE *members = fopen(path, "re");
    for (int pid; members != NULL && fscanf(members, "%d", &pid) == 1;) {
        pid_t member_group = pid == self ? -1 : live_group(pid);
        if (member_group < 0 || member_group == group) continue;  // counted above
        count++;
        if (signal != 0) fence_signal_pinned(pid, signal, group, fence_cgroup);
    }
    if (members != NULL) fclose(members);
    return count;
}

// FILE.stopped: created when the fence fires, and given the instant the run ended once it has.
static void mark_stopped(const char *file, int ended) {
    char marker[4096];
    if (snprintf(marker, sizeof marker, "%s.stopped", file) >= (int)sizeof marker) return;
    int fd = open(marker, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) return;
    if (ended) {
        struct timespec now;
        clock_gettime(CLOCK_REALTIME, &now);
        dprintf(fd, "%llu\n", (unsigned long long)now.tv_sec * 1000000u + (unsigned long long)now.tv_nsec / 1000u);
    }
    close(fd);
}

static void pause_tick(const sigset_t *children) {
    struct timespec tick = {0, 100 * 1000 * 1000};
    sigtimedwait(children, NULL, &tick);
}

// Ends as the command ended: its exit status, or its signal, raised again with the default action.
static void __attribute__((noreturn)) end_like(int status) {
    if (WIFSIGNALED(status)) {
        int signal_number = WTERMSIG(status);
        signal(signal_number, SIG_DFL);
        sigset_t only;
        sigemptyset(&only);
        sigaddset(&only, signal_number);
        sigprocmask(SIG_UNBLOCK, &only, NULL);
        raise(signal_number);
        _exit(128 + signal_number);
    }
    _exit(WIFEXITED(status) ? WEXITSTATUS(status) : 1);
}

int fence_supervise(const char *file, uint64_t grace, const char *cgroup, int status_fd) {
    sigset_t children, before, ignored;
    sigemptyset(&children);
    sigaddset(&children, SIGCHLD);
    // Blocked across the fork too, until the supervisor ignores them: a command that signals its
    // process group at once (jobd's stop, `kill -TERM 0`) must not end the supervisor before it has.
    sigemptyset(&ignored);
    sigaddset(&ignored, SIGTERM);
    sigaddset(&ignored, SIGINT);
    sigaddset(&ignored, SIGHUP);
    sigaddset(&ignored, SIGPIPE);
    sigset_t blocked;
    sigorset(&blocked, &children, &ignored);
    sigprocmask(SIG_BLOCK, &blocked, &before);
    pid_t child = fork();
    if (child <= 0) {
        int saved = errno;
        sigprocmask(SIG_SETMASK, &before, NULL);
        errno = saved;
        return child == 0 ? 0 : -1;
    }
    // The supervisor: the command's execve closes the child's copy of the status socket.
    if (status_fd >= 0) close(status_fd);
    fence_cgroup = cgroup;
    struct rlimit no_core = {0, 0};
    setrlimit(RLIMIT_CORE, &no_core);  // its re-raised signal must not dump a core of its own
    signal(SIGTERM, SIG_IGN);
    signal(SIGINT, SIG_IGN);
    signal(SIGHUP, SIG_IGN);
    signal(SIGPIPE, SIG_IGN);
    sigprocmask(SIG_UNBLOCK, &ignored, NULL);
    int fired = 0, killing = 0;
    uint64_t kill_at = UINT64_MAX;
    for (;;) {
        int status;
        pid_t done = waitpid(child, &status, WNOHANG);
        if (done < 0 && errno == ECHILD) _exit(1);
        uint64_t now = boottime_usec();
        if (!fired && now >= read_deadline(file)) {
            fired = 1;
            mark_stopped(file, 0);
            dprintf(STDERR_FILENO, "jobd-cgexec: this node no longer holds the run's fleet lease: SIGTERM to the run\n");
            signal_others(SIGTERM);
            signal_others(SIGCONT);
            if (grace != UINT64_MAX) kill_at = now + grace;
        }
        if (fired && !killing && now >= kill_at) {
            killing = 1;
            dprintf(STDERR_FILENO, "jobd-cgexec: the run outlived its stop timeout after the lease ended: SIGKILL\n");
        }
        if (killing) signal_others(SIGKILL);
        if (done == child) {
            // A fenced run ends with all of its processes, whether jobd runs or not.
            while (fired && signal_others(killing ? SIGKILL : 0) > 0) {
                pause_tick(&children);
                if (!killing && boottime_usec() >= kill_at) killing = 1;
            }
            if (fired) mark_stopped(file, 1);
            end_like(status);
        }
        pause_tick(&children);
    }
}
