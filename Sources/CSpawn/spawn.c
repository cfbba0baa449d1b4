// jobd_spawn (include/spawn.h). The child shares jobd's memory until its execve (CLONE_VM |
// CLONE_VFORK, as glibc's posix_spawn): it copies no page table, and it reports a failed step by
// writing into the plan, which the parent reads once the kernel resumes it. So the child calls only
// system calls and async-signal-safe functions, on a stack of its own, with every signal blocked
// until each handler of jobd's is reset (a handler would otherwise run on jobd's memory).
#define _GNU_SOURCE
#include "spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef SYS_clone3
#define SYS_clone3 435
#endif
#ifndef SYS_close_range
#define SYS_close_range 436
#endif
#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef CLONE_PIDFD
#define CLONE_PIDFD 0x00001000
#endif
#define JOBD_CLONE_INTO_CGROUP 0x200000000ULL
#define JOBD_KEYCTL_JOIN_SESSION_KEYRING 1
#define JOBD_KEYCTL_CHOWN 4

// The kernel's struct clone_args up to its cgroup (CLONE_ARGS_SIZE_VER2).
struct jobd_clone_args {
    uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls, set_tid, set_tid_size, cgroup;
};

// Enough for the child's few calls; glibc's posix_spawn sizes its own stack about as small.
enum { CHILD_STACK_SIZE = 64 * 1024 };

#if defined(__x86_64__)
// clone3 returns in the child on its new stack, where no C frame exists to return to: the child
// calls `child(argument)` from here and exits with what it returns. glibc has no clone3 wrapper.
static long clone3_calling(struct jobd_clone_args *args, int (*child)(void *), void *argument) {
    long result;
    register void *function __asm__("r8") = (void *)child;
    register void *parameter __asm__("r9") = argument;
    __asm__ volatile(
        "syscall\n\t"
        "testq %%rax, %%rax\n\t"
        "jnz 1f\n\t"
        "xorl %%ebp, %%ebp\n\t"
        "movq %%r9, %%rdi\n\t"
        "callq *%%r8\n\t"
        "movl %%eax, %%edi\n\t"
        "movl $60, %%eax\n\t"  // exit
        "syscall\n\t"
        "hlt\n"
        "1:"
        : "=a"(result)
        : "0"((long)SYS_clone3), "D"(args), "S"(sizeof *args), "r"(function), "r"(parameter)
        : "rcx", "r11", "memory", "cc");
    return result;
}
#else
// Elsewhere glibc's clone() (no cgroup to start in: jobd-cgexec enters it).
static long clone3_calling(struct jobd_clone_args *args, int (*child)(void *), void *argument) {
    (void)args, (void)child, (void)argument;
    return -ENOSYS;
}
#endif

static _Noreturn void child_fails(struct jobd_spawn_plan *plan, int step) {
    volatile struct jobd_spawn_plan *shared = plan;
    shared->error_number = errno;
    shared->failed_step = step;
    _exit(127);
}

// `descriptor` as the child's `target`, without close-on-exec.
static int place(int descriptor, int target) {
    if (descriptor == target) return fcntl(target, F_SETFD, 0);
    return dup2(descriptor, target) < 0 ? -1 : 0;
}

// Writes "0" to DIRECTORY/cgroup.procs; a cgroup seen gone is made again once, as jobd-cgexec does.
static int enter_legacy(const char *directory) {
    char path[4096];
    size_t length = strlen(directory);
    static const char procs[] = "/cgroup.procs";
    if (length + sizeof procs > sizeof path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(path, directory, length);
    memcpy(path + length, procs, sizeof procs);
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0 && errno == ENOENT && (mkdir(directory, 0755) == 0 || errno == EEXIST)) fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    int written = write(fd, "0", 1) == 1 ? 0 : -1;
    close(fd);
    return written;
}

// Every descriptor from 3 up: close_range (Linux 5.9), else each one /proc/self/fd lists, again
// until a pass finds none (closing while reading the directory may skip an entry).
static int close_from_three(void) {
    if (syscall(SYS_close_range, 3U, ~0U, 0) == 0) return 0;
    if (errno != ENOSYS) return -1;
    int directory = open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (directory < 0) return -1;
    for (int closed = 1; closed;) {
        closed = 0;
        lseek(directory, 0, SEEK_SET);
        char buffer[2048] __attribute__((aligned(8)));
        long count;
        while ((count = syscall(SYS_getdents64, directory, buffer, sizeof buffer)) > 0) {
            for (long offset = 0; offset < count;) {
                struct { uint64_t inode; int64_t next; unsigned short size; unsigned char type; char name[]; } *entry = (void *)(buffer + offset);
                offset += entry->size;
                int fd = 0;
                for (const char *digit = entry->name; *digit >= '0' && *digit <= '9'; digit++) fd = fd * 10 + (*digit - '0');
                if (entry->name[0] >= '0' && entry->name[0] <= '9' && fd >= 3 && fd != directory) {
                    close(fd);
                    closed = 1;
                }
            }
        }
    }
    close(directory);
    return 0;
}

// The switch to the run's user, with raw system calls: glibc's wrappers would signal every thread
// of jobd's, whose memory this child shares, to switch theirs too. The groups first, then the gid,
// then the uid (after which nothing needs root); then the user's working directory, entered as the
// user (a missing optional one leaves the run in /, as jobd-cgexec's exec_change_directory).
static void switch_credentials(struct jobd_spawn_plan *plan) {
    if (plan->set_groups && syscall(SYS_setgroups, plan->group_count, plan->groups) != 0) child_fails(plan, JOBD_SPAWN_GROUPS);
    if (plan->set_gid && syscall(SYS_setresgid, plan->gid, plan->gid, plan->gid) != 0) child_fails(plan, JOBD_SPAWN_GROUPS);
    if (plan->set_uid && syscall(SYS_setresuid, plan->uid, plan->uid, plan->uid) != 0) child_fails(plan, JOBD_SPAWN_USER);
    if (plan->user_directory == NULL || chdir(plan->user_directory) == 0) return;
    if (!plan->user_directory_optional || (errno != ENOENT && errno != ENOTDIR) || chdir("/") != 0) child_fails(plan, JOBD_SPAWN_USER_DIRECTORY);
}

static int child(void *argument) {
    struct jobd_spawn_plan *plan = argument;
    // Every signal at its default (glibc's 32 and 33 too, which its sigaction refuses), as systemd
    // starts a service; an all-zero kernel sigaction is SIG_DFL.
    unsigned long defaults[4] = {0};
    for (int signal = 1; signal < 65; signal++)
        if (signal != SIGKILL && signal != SIGSTOP) syscall(SYS_rt_sigaction, signal, defaults, NULL, sizeof(uint64_t));
    if (setsid() < 0) child_fails(plan, JOBD_SPAWN_SESSION);
    if (place(plan->input, 0) != 0 || place(plan->output, 1) != 0 || place(plan->error, 2) != 0) child_fails(plan, JOBD_SPAWN_DESCRIPTORS);
    if (plan->directory != NULL && chdir(plan->directory) != 0) child_fails(plan, JOBD_SPAWN_DIRECTORY);
    for (const char *const *legacy = plan->legacy_cgroups; legacy != NULL && *legacy != NULL; legacy++)
        if (enter_legacy(*legacy) != 0) child_fails(plan, JOBD_SPAWN_CGROUP);
    // As jobd-cgexec: where the kernel has no keyrings or a filter refuses keyctl(), there is none to
    // share; a keyring made is given to the run's user and group (exec_join_session_keyring).
    long keyring = plan->keyring ? syscall(SYS_keyctl, JOBD_KEYCTL_JOIN_SESSION_KEYRING, NULL) : -1;
    if (plan->keyring && keyring < 0 && errno != ENOSYS && errno != EPERM && errno != EACCES) child_fails(plan, JOBD_SPAWN_KEYRING);
    if (keyring >= 0 && (plan->set_uid || plan->set_gid))
        syscall(SYS_keyctl, JOBD_KEYCTL_CHOWN, keyring, plan->set_uid ? plan->uid : (unsigned)-1, plan->set_gid ? plan->gid : (unsigned)-1);
    if (plan->set_nofile) {
        struct rlimit limit = {(rlim_t)plan->nofile_soft, (rlim_t)plan->nofile_hard};
        if (setrlimit(RLIMIT_NOFILE, &limit) != 0) child_fails(plan, JOBD_SPAWN_LIMIT);
    }
    // Before the switch: without close_range (Linux 5.9), /proc/self/fd is the list, which the
    // user may not read once the switch has made the process undumpable.
    if (close_from_three() != 0) child_fails(plan, JOBD_SPAWN_CLOSE);
    switch_credentials(plan);
    uint64_t none = 0;
    syscall(SYS_rt_sigprocmask, SIG_SETMASK, &none, NULL, sizeof none);
    execve(plan->path, plan->argv, plan->environment);
    child_fails(plan, JOBD_SPAWN_EXEC);
}

// Whether this kernel has clone3 (0: not known yet); a plan without a cgroup then takes clone().
static int has_clone3 = 0;

// The child's stack: a mapping of its own, as glibc's posix_spawn maps one, kept by the spawning
// thread for its next spawn and unmapped when the thread exits. The child is done with it once the
// parent resumes (CLONE_VFORK: after its execve or exit). Mapping and unmapping one at each spawn
// cost jobd a fortieth of its time at a thousand runs a second, most of it the unmap's TLB
// shootdown across the cores.
static pthread_once_t stack_key_once = PTHREAD_ONCE_INIT;
static pthread_key_t stack_key;
static __thread char *thread_stack = NULL;

static void unmap_stack(void *stack) { munmap(stack, CHILD_STACK_SIZE); }
static void make_stack_key(void) { pthread_key_create(&stack_key, unmap_stack); }

static char *child_stack(void) {
    if (thread_stack != NULL) return thread_stack;
    char *stack = mmap(NULL, CHILD_STACK_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK | MAP_NORESERVE, -1, 0);
    if (stack == MAP_FAILED) return NULL;
    pthread_once(&stack_key_once, make_stack_key);
    // A thread whose exit could not unmap it would leave it behind: map one at each spawn then.
    if (pthread_setspecific(stack_key, stack) == 0) thread_stack = stack;
    return stack;
}

int jobd_spawn(struct jobd_spawn_plan *plan) {
    volatile struct jobd_spawn_plan *shared = plan;
    shared->failed_step = JOBD_SPAWN_OK;
    shared->error_number = 0;
    plan->pid = -1;
    plan->pidfd = -1;
    char *stack = child_stack();
    if (stack == NULL) {
        plan->failed_step = JOBD_SPAWN_CLONE;
        plan->error_number = errno;
        return -1;
    }
    uint64_t all = ~0ULL, previous = 0;
    syscall(SYS_rt_sigprocmask, SIG_BLOCK, &all, &previous, sizeof all);
    int pidfd = -1;
    long pid = -ENOSYS;
    if (__atomic_load_n(&has_clone3, __ATOMIC_RELAXED) >= 0) {
        struct jobd_clone_args args = {
            .flags = CLONE_VM | CLONE_VFORK | CLONE_PIDFD | (plan->cgroup >= 0 ? JOBD_CLONE_INTO_CGROUP : 0),
            .pidfd = (uint64_t)(uintptr_t)&pidfd,
            .exit_signal = SIGCHLD,
            .stack = (uint64_t)(uintptr_t)stack,
            .stack_size = CHILD_STACK_SIZE,
            .cgroup = plan->cgroup >= 0 ? (uint64_t)plan->cgroup : 0,
        };
        pid = clone3_calling(&args, child, plan);
        if (pid == -ENOSYS) __atomic_store_n(&has_clone3, -1, __ATOMIC_RELAXED);
    }
    if (pid == -ENOSYS && plan->cgroup < 0) {
        pid = clone(child, stack + CHILD_STACK_SIZE, CLONE_VM | CLONE_VFORK | SIGCHLD, plan);
        if (pid < 0) pid = -errno;
    }
    syscall(SYS_rt_sigprocmask, SIG_SETMASK, &previous, NULL, sizeof previous);
    if (stack != thread_stack) munmap(stack, CHILD_STACK_SIZE);
    if (pid < 0) {
        shared->failed_step = JOBD_SPAWN_CLONE;
        shared->error_number = (int)-pid;
        return -1;
    }
    if (shared->failed_step != JOBD_SPAWN_OK) {
        int status;
        while (waitpid((pid_t)pid, &status, 0) < 0 && errno == EINTR) {}
        if (pidfd >= 0) close(pidfd);
        return -1;
    }
    if (pidfd < 0) {
        pidfd = (int)syscall(SYS_pidfd_open, (pid_t)pid, 0);
        if (pidfd < 0) {
            // Without a pidfd its end would go unseen: stopped rather than left running untracked.
            int code = errno;
            kill((pid_t)pid, SIGKILL);
            int status;
            while (waitpid((pid_t)pid, &status, 0) < 0 && errno == EINTR) {}
            shared->failed_step = JOBD_SPAWN_PIDFD;
            shared->error_number = code;
            return -1;
        }
    }
    plan->pid = (int)pid;
    plan->pidfd = pidfd;
    return 0;
}
