// jobd_run_spawn: posix_spawn's way (a child that shares jobd's memory and runs on a stack of its
// own until it executes, CLONE_VM | CLONE_VFORK, as glibc's posix_spawn does), with the run's
// RLIMIT_NOFILE set in the child. Only async-signal-safe system calls run in the child; jobd's
// signals are blocked around the clone so that no handler of jobd's runs on the child's stack.
#define _GNU_SOURCE
#include "run_spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

enum { stack_size = 64 * 1024 };

struct child {
    const struct jobd_run_spawn *spawn;
    // Written by the child before it exits without executing: the failed step and its errno.
    volatile int error;
    const char *volatile step;
};

static int fail(struct child *child, const char *step) {
    child->error = errno ? errno : EINVAL;
    child->step = step;
    _exit(127);
}

static int start(void *argument) {
    struct child *child = argument;
    const struct jobd_run_spawn *spawn = child->spawn;
    // Every disposition back to its default (no CLONE_SIGHAND: the child's table is its own
    // copy), through the system call itself: glibc's sigaction refuses its own signals 32 and 33,
    // which a program must not inherit ignored either. A zeroed kernel sigaction is SIG_DFL, no
    // flags and an empty mask, whatever the architecture's layout.
    unsigned long defaults[4] = {0, 0, 0, 0};
    for (int signal = 1; signal < _NSIG; signal++) {
        if (signal != SIGKILL && signal != SIGSTOP) syscall(SYS_rt_sigaction, signal, defaults, NULL, _NSIG / 8);
    }
    if (setsid() < 0) return fail(child, "setsid");
    int from[3] = {spawn->input, spawn->output, spawn->error};
    for (int target = 0; target < 3; target++) {
        // dup2 of a descriptor onto itself would keep its close-on-exec flag.
        if (from[target] == target) {
            int flags = fcntl(target, F_GETFD);
            if (flags < 0 || fcntl(target, F_SETFD, flags & ~FD_CLOEXEC) < 0) return fail(child, "fcntl");
        } else if (dup2(from[target], target) < 0) {
            return fail(child, "dup2");
        }
    }
    if (syscall(SYS_close_range, 3U, ~0U, 0U) < 0 && errno != ENOSYS) return fail(child, "close_range");
    if (chdir(spawn->directory) < 0) return fail(child, "chdir");
    if (spawn->set_nofile) {
        struct rlimit limit = {
            .rlim_cur = spawn->nofile_soft == ~0ULL ? RLIM_INFINITY : spawn->nofile_soft,
            .rlim_max = spawn->nofile_hard == ~0ULL ? RLIM_INFINITY : spawn->nofile_hard,
        };
        if (setrlimit(RLIMIT_NOFILE, &limit) < 0) return fail(child, "setrlimit");
    }
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    execve(spawn->path, spawn->argv, spawn->envp);
    return fail(child, "execve");
}

int jobd_run_spawn(const struct jobd_run_spawn *spawn, const char **step) {
    *step = "mmap";
    void *stack = mmap(NULL, stack_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    if (stack == MAP_FAILED) return -errno;
    struct child child = {.spawn = spawn, .error = 0, .step = NULL};
    sigset_t all, previous;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &previous);
    int pid = clone(start, (char *)stack + stack_size, CLONE_VM | CLONE_VFORK | SIGCHLD, &child);
    int code = pid < 0 ? errno : 0;
    pthread_sigmask(SIG_SETMASK, &previous, NULL);
    munmap(stack, stack_size);
    if (pid < 0) {
        *step = "clone";
        return -code;
    }
    if (child.error != 0) {
        int status;
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
        *step = child.step;
        return -child.error;
    }
    *step = NULL;
    return pid;
}
